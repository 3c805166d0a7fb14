// Package io reads and writes tensors in the formats other tools use, and the
// checkpoint directories of DESIGN §7.
//
// Where things are:
//
//	atomic.go       WriteFileAtomic: temp file in the same dir + fsync + rename; WriteFilesAtomic: several, all or none
//	raw.go          little-endian element encoding shared by both formats (+ f16/bf16 decoding)
//	safetensors.go  the safetensors format (Hugging Face): read, write, header-only inspect
//	npy.go          NumPy .npy (read v1/v2/v3, write v1)
//	ndarray.go      DecodeArray: raw NumPy array bytes (from other containers) to a tensor
//	checkpoint.go   SaveCheckpoint (temp folder + fsync + rename swap) / ResolveCheckpoint / LoadCheckpoint / CheckNames
//	fault.go        the fault-injection hooks the tests use (kill at the Nth filesystem step; fail the Nth
//	                operation with ENOSPC/EROFS/EIO) and Why (a write error in words)
//
// Every writer is atomic: a reader never sees a half-written file, and a crash
// leaves the previous file in place.
package io
