// Package data turns datasets into batches: samplers choose the order,
// a Loader reads and transforms samples on worker goroutines and collates
// them into batches, in a deterministic order that does not depend on the
// number of workers.
//
// Where things are:
//
//	dataset.go       Dataset, RandDataset, IterableDataset, SliceDataset, WithTransform
//	transform.go     Transform (STYLE §3.4), TransformFunc, Compose, OnImage
//	sampler.go       Sequential, Random (new permutation per epoch), WeightedRandom
//	rng.go           SampleRand: the per-sample RNG derived from (seed, epoch, position)
//	loader.go        Loader: batching, workers, prefetch, ordered output, cancellation
//	iterable.go      IterableLoader: batching for streamed datasets
//	collate.go       Stack: same-shape tensors into one batch tensor
//	image.go         Image (8-bit HWC), Decode for PNG/JPEG/GIF/BMP/TIFF/WebP, ToTensor
//	jpeg.go, exif.go decode details that make JPEGs come out as OpenCV reads them
//	imageops.go      resize (bit-exact with cv2.resize), crop, flip, rotate (pure functions)
//	color.go         brightness, contrast, saturation (torchvision's uint8 arithmetic)
//	imagetransform.go  the same as Transform[Image] values, random where it says so
//
// Reference values come from scripts/ref/data_image_ref.py (OpenCV,
// torchvision, PIL), stored under testdata/.
package data
