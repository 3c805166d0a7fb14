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
//	image.go         Image (8-bit HWC), Decode for PNG/JPEG/GIF/BMP/TIFF/WebP, ToTensor
//	imageops.go      resize, crop, flip, rotate, colour adjustments (pure functions)
//	imagetransform.go  the same as Transform[Image] values, random where it says so
package data
