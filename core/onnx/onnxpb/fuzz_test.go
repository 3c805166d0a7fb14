package onnxpb

import (
	"bytes"
	"testing"
)

func fuzzSeeds(f *testing.F) {
	sample, err := sampleModel().Marshal()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sample)
	f.Add(deepGraph(5))
	for _, s := range []string{
		"08 08  12 01 70  3a 03 12 01 67  42 04 0a 00 10 0b  72 06 0a 01 6b 12 01 76",
		"3a 1a 5a 18  0a 01 78  12 13 0a 11  08 01  12 0d  0a 03 12 01 4e  0a 02 08 03  0a 00 0a 00",
		"3a 1c  5a 0d 0a 01 71 12 08 22 06 0a 04 0a 02 08 01  5a 0b 0a 01 6f 12 06 4a 04 0a 02 0a 00",
		"08 02 08 01 10 01 22 08 00 00 80 3f 00 00 00 40 42 01 77",
		"10 07 4a 02 01 02 3a 03 05 80 01 2a 0a fe ff ff ff ff ff ff ff ff 01",
		"a2 01 00  0a 01 00  4d 01 02 03 04  0b 10 01 0c",
	} {
		f.Add(h(s))
	}
}

// FuzzDecode: decoding never panics, and whatever decodes re-encodes to bytes
// that decode and re-encode identically.
func FuzzDecode(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(b)
		if err != nil {
			return
		}
		enc, err := m.Marshal()
		if err != nil {
			t.Fatalf("Marshal of a decoded model: %v", err)
		}
		m2, err := Decode(enc)
		if err != nil {
			t.Fatalf("Decode(Marshal(m)): %v", err)
		}
		enc2, err := m2.Marshal()
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("Marshal not stable: %v\n% x\n% x", err, enc, enc2)
		}
		m.EachTensor(func(tn *Tensor) bool { readAll(tn); return true })
	})
}

// FuzzDecodeTensor: tensors and their accessors never panic.
func FuzzDecodeTensor(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		tn, err := DecodeTensor(b)
		if err != nil {
			return
		}
		readAll(tn)
		enc, err := tn.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeTensor(enc); err != nil {
			t.Fatalf("DecodeTensor(Marshal(t)): %v", err)
		}
	})
}

// readAll calls every accessor, under every data type.
func readAll(tn *Tensor) {
	for dt := range DataType(26) {
		tn.DataType = dt
		tn.NumElements()
		tn.Float32s()
		tn.Float64s()
		tn.Int64s()
		tn.Int32s()
		tn.Int16s()
		tn.Uint16s()
		tn.Uint64s()
		tn.Bools()
		tn.Uint8s()
		tn.Int8s()
		tn.Strings()
	}
}
