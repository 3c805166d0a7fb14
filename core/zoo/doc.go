// Package zoo holds the backbones several kits share: ResNet (18/34 family
// with basic blocks, 50+ with bottlenecks) and a PP-LCNet-style mobile net
// (depthwise separable convolutions, hardswish, squeeze-excitation). Each is
// an nn.Layer built from options that double as its YAML schema.
//
// Where things are:
//
//	convbn.go   ConvBN: conv + batch norm + activation, the unit of every backbone
//	resnet.go   ResNet (BasicBlock, Bottleneck)
//	pplcnet.go  PPLCNet (DepthwiseSeparable, SEModule)
//	imported.go ImportedBackbone: the chain backbone of an imported ONNX model (PP-OCRv4's PP-LCNetV3), trainable
//	paddle_names.go  maps to PaddleClas parameter names, for loading .pdparams
package zoo
