// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

void registerArrayFeatureExtractor(KernelRegistry& r);
void registerBinarizer(KernelRegistry& r);
void registerCastMap(KernelRegistry& r);
void registerCategoryMapper(KernelRegistry& r);
void registerDictVectorizer(KernelRegistry& r);
void registerFeatureVectorizer(KernelRegistry& r);
void registerImputer(KernelRegistry& r);
void registerLabelEncoder(KernelRegistry& r);
void registerNormalizer(KernelRegistry& r);
void registerOneHotEncoder(KernelRegistry& r);
void registerScaler(KernelRegistry& r);
void registerZipMap(KernelRegistry& r);
void registerLinearModels(KernelRegistry& r);
void registerSvms(KernelRegistry& r);
void registerTreeEnsembles(KernelRegistry& r);
void registerTreeEnsemble5(KernelRegistry& r);
void registerTfIdfVectorizer(KernelRegistry& r);
void registerStringNormalizer(KernelRegistry& r);

/// ai.onnx.ml operators (and their mlprodict *Double variants), plus the text operators of ML pipelines.
void registerMlKernels(KernelRegistry& r)
{
    registerArrayFeatureExtractor(r);
    registerBinarizer(r);
    registerCastMap(r);
    registerCategoryMapper(r);
    registerDictVectorizer(r);
    registerFeatureVectorizer(r);
    registerImputer(r);
    registerLabelEncoder(r);
    registerNormalizer(r);
    registerOneHotEncoder(r);
    registerScaler(r);
    registerZipMap(r);
    registerLinearModels(r);
    registerSvms(r);
    registerTreeEnsembles(r);
    registerTreeEnsemble5(r);
    registerTfIdfVectorizer(r); // default domain, but only classic-ML text pipelines use it
    registerStringNormalizer(r);
}

} // namespace onnxscope
