// Package vorbis decodes Ogg Vorbis audio in pure Go, written from the
// Vorbis I specification and the Ogg framing spec (RFC 3533).
//
// It decodes the first Vorbis logical stream of an Ogg file (other
// multiplexed streams are skipped; chained streams after it are ignored)
// to float32 samples per channel, trimmed to the last page's granule
// position, and matches libvorbis's float output within ~3e-7 on the
// committed fixtures. Floor type 0 (unused by encoders since 2002) is
// reported as unsupported.
//
// Where things are:
//
//	ogg.go       Ogg pages (CRC-32 check), lacing, packets across pages
//	bits.go      LSB-first bit reader
//	header.go    identification, comment and setup headers
//	codebook.go  Huffman codes from lengths, VQ lookup types 1 and 2
//	floor.go     floor 1: post decode, amplitude synthesis, curve
//	residue.go   residue types 0, 1 and 2
//	mdct.go      inverse MDCT (DCT-IV through an n/4 complex FFT), window
//	decode.go    Decode/ReadFile, audio packets, coupling, overlap-add
package vorbis
