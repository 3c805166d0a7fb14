package tokenizer

import (
	"fmt"
	"testing"
)

// BenchmarkEncodeBatch encodes the golden sentences (Brown, fortunes en/zh,
// mixed) per iteration and reports tokens per second; compare with
// scripts/bench/tokenizer_bench.mjs (the HF library, same sentences, same threads).
//
//	go test -run '^$' -bench EncodeBatch -benchtime 3s ./core/tokenizer/
func BenchmarkEncodeBatch(b *testing.B) {
	sents := sentencesOnce()
	for _, name := range []string{"qwen3", "gpt4o", "gemma3", "gpt2", "bert"} {
		b.Run(name, func(b *testing.B) {
			tok := loadNamed(b, name)
			encs, err := tok.EncodeBatch(sents, true, 2) // warm the BPE cache, count tokens
			if err != nil {
				b.Fatal(err)
			}
			ntok := 0
			for _, e := range encs {
				ntok += e.Len()
			}
			for _, threads := range []int{1, 2} {
				b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
					for b.Loop() {
						if _, err := tok.EncodeBatch(sents, true, threads); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(ntok)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
				})
			}
		})
	}
}
