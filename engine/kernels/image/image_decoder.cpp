// SPDX-License-Identifier: MIT
#include "engine/kernels/image/image_codecs.h"
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

namespace {

/// ImageDecoder 20: a 1-D uint8 tensor holding an encoded image (BMP, JPEG, JPEG 2000, PNG, binary PNM, TIFF or WebP,
/// recognised by its signature) decoded to uint8 [H, W, 3] in `pixel_format` RGB (the default) or BGR, or [H, W, 1]
/// Grayscale, which is L = (19595 R + 38470 G + 7471 B + 2^15) >> 16 of the decoded RGB, the ITU-R 601 luma that
/// Pillow (onnx's reference) computes. Alpha channels are dropped. Decoding is done by libjpeg-turbo, libpng, libwebp,
/// libtiff and OpenJPEG, the libraries Pillow decodes with; BMP (uncompressed 24/32-bit) and PNM are read here.
class ImageDecoder final : public Kernel {
public:
    explicit ImageDecoder(const KernelInit& init)
    {
        const std::string format = init.attributes().getString("pixel_format", "RGB");
        if (format != "RGB" && format != "BGR" && format != "Grayscale")
            throw init.attributes().error("pixel_format", "expected RGB, BGR or Grayscale, got \"" + format + "\"");
        m_bgr = format == "BGR";
        m_gray = format == "Grayscale";
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.dtype() != DataType::UInt8 || x.rank() != 1)
            throw ctx.error("encoded_stream must be 1-D uint8, got " + x.typeString());
        image::RgbImage img;
        try {
            img = image::decodeImage(x.data<uint8_t>());
        } catch (const Error& e) {
            throw ctx.error(e.what());
        }
        const int64_t channels = m_gray ? 1 : 3;
        auto out
            = ctx.allocateOutputUninitialized(0, DataType::UInt8, { img.height, img.width, channels }).data<uint8_t>();
        const size_t pixels = static_cast<size_t>(img.height * img.width);
        for (size_t i = 0; i < pixels; ++i) {
            const uint32_t r = img.rgb[i * 3], g = img.rgb[i * 3 + 1], b = img.rgb[i * 3 + 2];
            if (m_gray) {
                out[i] = static_cast<uint8_t>((r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16);
            } else {
                out[i * 3] = static_cast<uint8_t>(m_bgr ? b : r);
                out[i * 3 + 1] = static_cast<uint8_t>(g);
                out[i * 3 + 2] = static_cast<uint8_t>(m_bgr ? r : b);
            }
        }
    }

private:
    bool m_bgr = false;
    bool m_gray = false;
};

} // namespace

void registerImageDecoder(KernelRegistry& r)
{
    r.add("", "ImageDecoder", 20, 20, makeFactory<ImageDecoder>());
}

} // namespace onnxscope
