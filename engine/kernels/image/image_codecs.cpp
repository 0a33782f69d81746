// SPDX-License-Identifier: MIT
#include "engine/kernels/image/image_codecs.h"

#include "engine/core/error.h"

#include <jpeglib.h>
#include <openjpeg.h>
#include <png.h>
#include <tiffio.h>
#include <webp/decode.h>

#include <algorithm>
#include <cctype>
#include <csetjmp>
#include <cstring>
#include <memory>
#include <string>

namespace onnxscope::image {

namespace {

bool startsWith(std::span<const uint8_t> b, const char* sig, size_t n, size_t at = 0)
{
    return b.size() >= at + n && std::memcmp(b.data() + at, sig, n) == 0;
}

RgbImage blank(int64_t h, int64_t w, const char* format)
{
    if (h <= 0 || w <= 0 || h > (1 << 16) || w > (1 << 16))
        throw Error(std::string(format) + ": unsupported image size " + std::to_string(w) + "x" + std::to_string(h));
    RgbImage img { h, w, {} };
    img.rgb.resize(static_cast<size_t>(h * w * 3));
    return img;
}

struct JpegError {
    jpeg_error_mgr mgr;
    std::jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

RgbImage decodeJpeg(std::span<const uint8_t> b)
{
    jpeg_decompress_struct cinfo {};
    JpegError err {};
    cinfo.err = jpeg_std_error(&err.mgr);
    err.mgr.error_exit = [](j_common_ptr c) {
        auto* e = reinterpret_cast<JpegError*>(c->err);
        e->mgr.format_message(c, e->message);
        std::longjmp(e->jump, 1);
    };
    RgbImage img;
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&cinfo);
        throw Error(std::string("JPEG: ") + err.message);
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, b.data(), static_cast<unsigned long>(b.size()));
    jpeg_read_header(&cinfo, TRUE);
    cinfo.out_color_space = JCS_RGB;
    jpeg_start_decompress(&cinfo);
    img = blank(cinfo.output_height, cinfo.output_width, "JPEG");
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = img.rgb.data() + static_cast<size_t>(cinfo.output_scanline) * img.width * 3;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return img;
}

RgbImage decodePng(std::span<const uint8_t> b)
{
    png_image png {};
    png.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&png, b.data(), b.size()))
        throw Error(std::string("PNG: ") + png.message);
    png.format = PNG_FORMAT_RGB;
    RgbImage img;
    try {
        img = blank(png.height, png.width, "PNG");
    } catch (...) {
        png_image_free(&png);
        throw;
    }
    if (!png_image_finish_read(&png, nullptr, img.rgb.data(), 0, nullptr))
        throw Error(std::string("PNG: ") + png.message);
    return img;
}

RgbImage decodeWebp(std::span<const uint8_t> b)
{
    int w = 0, h = 0;
    if (!WebPGetInfo(b.data(), b.size(), &w, &h))
        throw Error("WebP: not a valid WebP image");
    RgbImage img = blank(h, w, "WebP");
    if (!WebPDecodeRGBInto(b.data(), b.size(), img.rgb.data(), img.rgb.size(), w * 3))
        throw Error("WebP: decoding failed");
    return img;
}

/// Binary PNM: P5 (grey) and P6 (RGB), 8-bit.
RgbImage decodePnm(std::span<const uint8_t> b)
{
    size_t pos = 2;
    auto number = [&]() {
        while (pos < b.size()) {
            if (b[pos] == '#')
                while (pos < b.size() && b[pos] != '\n')
                    ++pos;
            else if (std::isspace(b[pos]))
                ++pos;
            else
                break;
        }
        int64_t v = 0;
        bool any = false;
        while (pos < b.size() && b[pos] >= '0' && b[pos] <= '9' && v < (1 << 20)) {
            v = v * 10 + (b[pos++] - '0');
            any = true;
        }
        if (!any)
            throw Error("PNM: malformed header");
        return v;
    };
    const bool rgb = b[1] == '6';
    const int64_t w = number(), h = number(), maxValue = number();
    if (maxValue != 255)
        throw Error("PNM: only 8-bit images are supported, got maxval " + std::to_string(maxValue));
    ++pos; // the single whitespace after maxval
    RgbImage img = blank(h, w, "PNM");
    const size_t need = static_cast<size_t>(h * w * (rgb ? 3 : 1));
    if (b.size() < pos + need)
        throw Error("PNM: the pixel data is truncated");
    for (size_t i = 0; i < static_cast<size_t>(h * w); ++i)
        for (size_t c = 0; c < 3; ++c)
            img.rgb[i * 3 + c] = rgb ? b[pos + i * 3 + c] : b[pos + i];
    return img;
}

uint32_t le(std::span<const uint8_t> b, size_t at, int bytes)
{
    uint32_t v = 0;
    for (int i = bytes - 1; i >= 0; --i)
        v = (v << 8) | b[at + static_cast<size_t>(i)];
    return v;
}

/// Uncompressed 24- and 32-bit BMP (BI_RGB; 32-bit also BI_BITFIELDS in the usual BGRA order).
RgbImage decodeBmp(std::span<const uint8_t> b)
{
    if (b.size() < 54)
        throw Error("BMP: truncated header");
    const uint32_t offset = le(b, 10, 4);
    const auto w = static_cast<int32_t>(le(b, 18, 4)), h = static_cast<int32_t>(le(b, 22, 4));
    const uint32_t bits = le(b, 28, 2), compression = le(b, 30, 4);
    if ((bits != 24 && bits != 32) || (compression != 0 && compression != 3))
        throw Error("BMP: only uncompressed 24- and 32-bit images are supported");
    const int64_t height = h < 0 ? -int64_t(h) : h;
    RgbImage img = blank(height, w, "BMP");
    const size_t bpp = bits / 8, stride = (static_cast<size_t>(w) * bpp + 3) / 4 * 4;
    if (b.size() < offset + stride * static_cast<size_t>(height))
        throw Error("BMP: the pixel data is truncated");
    for (int64_t y = 0; y < height; ++y) {
        const size_t src = offset + stride * static_cast<size_t>(h < 0 ? y : height - 1 - y); // bottom-up unless h < 0
        for (int64_t x = 0; x < w; ++x)
            for (size_t c = 0; c < 3; ++c)
                img.rgb[static_cast<size_t>((y * w + x) * 3) + c] = b[src + static_cast<size_t>(x) * bpp + 2 - c];
    }
    return img;
}

struct MemoryFile {
    std::span<const uint8_t> bytes;
    size_t pos = 0;
};

RgbImage decodeTiff(std::span<const uint8_t> b)
{
    MemoryFile file { b, 0 };
    auto read = [](thandle_t h, tdata_t buf, tsize_t size) -> tsize_t {
        auto* f = static_cast<MemoryFile*>(h);
        const size_t n = std::min(static_cast<size_t>(size), f->bytes.size() - std::min(f->pos, f->bytes.size()));
        std::memcpy(buf, f->bytes.data() + f->pos, n);
        f->pos += n;
        return static_cast<tsize_t>(n);
    };
    auto write = [](thandle_t, tdata_t, tsize_t) -> tsize_t { return 0; };
    auto seek = [](thandle_t h, toff_t off, int whence) -> toff_t {
        auto* f = static_cast<MemoryFile*>(h);
        const size_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? f->pos : f->bytes.size();
        f->pos = base + static_cast<size_t>(off);
        return f->pos;
    };
    auto close = [](thandle_t) { return 0; };
    auto size = [](thandle_t h) -> toff_t { return static_cast<MemoryFile*>(h)->bytes.size(); };
    auto map = [](thandle_t, tdata_t*, toff_t*) { return 0; };
    auto unmap = [](thandle_t, tdata_t, toff_t) {};
    TIFFSetErrorHandler(nullptr);
    TIFFSetWarningHandler(nullptr);
    std::unique_ptr<TIFF, void (*)(TIFF*)> tif(
        TIFFClientOpen("image", "rm", &file, read, write, seek, close, size, map, unmap), TIFFClose);
    if (!tif)
        throw Error("TIFF: not a readable TIFF image");
    uint32_t w = 0, h = 0;
    TIFFGetField(tif.get(), TIFFTAG_IMAGEWIDTH, &w);
    TIFFGetField(tif.get(), TIFFTAG_IMAGELENGTH, &h);
    RgbImage img = blank(h, w, "TIFF");
    std::vector<uint32_t> rgba(static_cast<size_t>(w) * h);
    if (!TIFFReadRGBAImageOriented(tif.get(), w, h, rgba.data(), ORIENTATION_TOPLEFT, 0))
        throw Error("TIFF: decoding failed");
    for (size_t i = 0; i < rgba.size(); ++i) {
        img.rgb[i * 3] = static_cast<uint8_t>(TIFFGetR(rgba[i]));
        img.rgb[i * 3 + 1] = static_cast<uint8_t>(TIFFGetG(rgba[i]));
        img.rgb[i * 3 + 2] = static_cast<uint8_t>(TIFFGetB(rgba[i]));
    }
    return img;
}

RgbImage decodeJpeg2000(std::span<const uint8_t> b, bool codestream)
{
    MemoryFile file { b, 0 };
    std::unique_ptr<opj_stream_t, void (*)(opj_stream_t*)> stream(
        opj_stream_default_create(OPJ_TRUE), opj_stream_destroy);
    opj_stream_set_user_data(stream.get(), &file, nullptr);
    opj_stream_set_user_data_length(stream.get(), b.size());
    opj_stream_set_read_function(stream.get(), [](void* buf, OPJ_SIZE_T n, void* user) -> OPJ_SIZE_T {
        auto* f = static_cast<MemoryFile*>(user);
        const size_t left = f->bytes.size() - f->pos;
        if (left == 0)
            return static_cast<OPJ_SIZE_T>(-1);
        const size_t k = std::min(static_cast<size_t>(n), left);
        std::memcpy(buf, f->bytes.data() + f->pos, k);
        f->pos += k;
        return k;
    });
    opj_stream_set_skip_function(stream.get(), [](OPJ_OFF_T n, void* user) -> OPJ_OFF_T {
        auto* f = static_cast<MemoryFile*>(user);
        const auto to = std::clamp<int64_t>(static_cast<int64_t>(f->pos) + n, 0, static_cast<int64_t>(f->bytes.size()));
        const OPJ_OFF_T moved = to - static_cast<int64_t>(f->pos);
        f->pos = static_cast<size_t>(to);
        return moved;
    });
    opj_stream_set_seek_function(stream.get(), [](OPJ_OFF_T n, void* user) -> OPJ_BOOL {
        auto* f = static_cast<MemoryFile*>(user);
        if (n < 0 || static_cast<size_t>(n) > f->bytes.size())
            return OPJ_FALSE;
        f->pos = static_cast<size_t>(n);
        return OPJ_TRUE;
    });
    std::unique_ptr<opj_codec_t, void (*)(opj_codec_t*)> codec(
        opj_create_decompress(codestream ? OPJ_CODEC_J2K : OPJ_CODEC_JP2), opj_destroy_codec);
    opj_dparameters_t params;
    opj_set_default_decoder_parameters(&params);
    opj_image_t* raw = nullptr;
    if (!opj_setup_decoder(codec.get(), &params) || !opj_read_header(stream.get(), codec.get(), &raw))
        throw Error("JPEG 2000: unreadable header");
    std::unique_ptr<opj_image_t, void (*)(opj_image_t*)> image(raw, opj_image_destroy);
    if (!opj_decode(codec.get(), stream.get(), image.get()) || !opj_end_decompress(codec.get(), stream.get()))
        throw Error("JPEG 2000: decoding failed");
    const opj_image_t& im = *image;
    if (im.numcomps < 1 || (im.numcomps != 1 && im.numcomps < 3))
        throw Error("JPEG 2000: " + std::to_string(im.numcomps) + " components are not supported");
    const opj_image_comp_t* comps = im.comps;
    for (uint32_t c = 0; c < std::min<uint32_t>(im.numcomps, 3); ++c)
        if (comps[c].dx != 1 || comps[c].dy != 1 || comps[c].w != comps[0].w || comps[c].h != comps[0].h)
            throw Error("JPEG 2000: subsampled components are not supported");
    RgbImage img = blank(comps[0].h, comps[0].w, "JPEG 2000");
    const size_t pixels = static_cast<size_t>(img.height * img.width);
    for (size_t c = 0; c < 3; ++c) {
        const opj_image_comp_t& comp = comps[im.numcomps == 1 ? 0 : c];
        const int shift = static_cast<int>(comp.prec) - 8;
        const int offset = comp.sgnd ? 1 << (comp.prec - 1) : 0;
        for (size_t i = 0; i < pixels; ++i) {
            int v = comp.data[i] + offset;
            v = shift > 0 ? v >> shift : v << -shift;
            img.rgb[i * 3 + c] = static_cast<uint8_t>(std::clamp(v, 0, 255));
        }
    }
    return img;
}

} // namespace

RgbImage decodeImage(std::span<const uint8_t> b)
{
    if (startsWith(b, "\xff\xd8\xff", 3))
        return decodeJpeg(b);
    if (startsWith(b, "\x89PNG\r\n\x1a\n", 8))
        return decodePng(b);
    if (startsWith(b, "RIFF", 4) && startsWith(b, "WEBP", 4, 8))
        return decodeWebp(b);
    if (startsWith(b, "BM", 2))
        return decodeBmp(b);
    if (startsWith(b, "P5", 2) || startsWith(b, "P6", 2))
        return decodePnm(b);
    if (startsWith(b, "II*\0", 4) || startsWith(b, "MM\0*", 4))
        return decodeTiff(b);
    if (startsWith(b, "\0\0\0\x0cjP  \r\n\x87\n", 12))
        return decodeJpeg2000(b, false);
    if (startsWith(b, "\xff\x4f\xff\x51", 4))
        return decodeJpeg2000(b, true);
    throw Error("the encoded image is not BMP, JPEG, JPEG 2000, PNG, PNM, TIFF or WebP");
}

} // namespace onnxscope::image
