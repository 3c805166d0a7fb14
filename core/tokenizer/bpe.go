package tokenizer

import (
	"container/heap"
	"fmt"
	"sync"
	"unicode/utf8"
)

// A Model turns one pre-tokenized word into tokens.
type Model interface {
	tokenize(s string) ([]token, error)
	// TokenToID returns the id of a vocabulary entry.
	TokenToID(tok string) (int, bool)
	// IDToToken returns the vocabulary entry of an id.
	IDToToken(id int) (string, bool)
	// VocabSize is the number of entries.
	VocabSize() int
}

// vocab is a token to id map and its inverse (a slice indexed by id; ids
// are dense in practice, absent ones hold "" and have has false).
type vocab struct {
	ids  map[string]int
	toks []string
	has  []bool
}

func newVocab(ids map[string]int) vocab {
	n := 0
	for _, i := range ids {
		n = max(n, i+1)
	}
	v := vocab{ids: ids, toks: make([]string, n), has: make([]bool, n)}
	for t, i := range ids {
		if i >= 0 {
			v.toks[i], v.has[i] = t, true
		}
	}
	return v
}

func (v vocab) TokenToID(t string) (int, bool) { i, ok := v.ids[t]; return i, ok }
func (v vocab) IDToToken(i int) (string, bool) {
	if i < 0 || i >= len(v.toks) || !v.has[i] {
		return "", false
	}
	return v.toks[i], true
}
func (v vocab) VocabSize() int { return len(v.ids) }

type mergeVal struct{ rank, id int32 }

// mergeTable is an open-addressing hash table from a pair of ids to its
// merge (a Go map's probing was the largest cost of byte-level BPE).
type mergeTable struct {
	keys  []uint64 // pair a<<32|b; emptyKey when free
	vals  []mergeVal
	shift uint
}

const emptyKey = ^uint64(0)

func newMergeTable(n int) *mergeTable {
	size, shift := 16, uint(60)
	for size < 2*n {
		size, shift = size*2, shift-1
	}
	t := &mergeTable{keys: make([]uint64, size), vals: make([]mergeVal, size), shift: shift}
	for i := range t.keys {
		t.keys[i] = emptyKey
	}
	return t
}

func (t *mergeTable) slot(k uint64) int { return int((k * 0x9E3779B97F4A7C15) >> t.shift) }

// put sets k's value (a later merge of the same pair replaces the earlier, as in the library's map).
func (t *mergeTable) put(k uint64, v mergeVal) {
	mask := len(t.keys) - 1
	for i := t.slot(k); ; i = (i + 1) & mask {
		if t.keys[i] == emptyKey || t.keys[i] == k {
			t.keys[i], t.vals[i] = k, v
			return
		}
	}
}

func (t *mergeTable) get(a, b int32) (mergeVal, bool) {
	k := uint64(uint32(a))<<32 | uint64(uint32(b))
	mask := len(t.keys) - 1
	for i := t.slot(k); ; i = (i + 1) & mask {
		switch t.keys[i] {
		case k:
			return t.vals[i], true
		case emptyKey:
			return mergeVal{}, false
		}
	}
}

// BPE is byte-pair encoding with ranked merges (Hugging Face's BPE model).
type BPE struct {
	vocab
	merges       *mergeTable
	unk          string
	prefix       string // continuing_subword_prefix
	suffix       string // end_of_word_suffix
	fuseUnk      bool
	byteFallback bool
	ignoreMerges bool
	byteIDs      [256]int32 // <0xXX> ids, -1 when absent

	mu    sync.RWMutex
	cache map[string][]symbol
}

const bpeCacheCap = 10000

// newBPE builds a BPE model from a vocabulary and ordered merges.
// prefix is the continuing-subword prefix, dropped from a merge's right part.
func newBPE(ids map[string]int, merges [][2]string, prefix string) (*BPE, error) {
	b := &BPE{vocab: newVocab(ids), merges: newMergeTable(len(merges)), cache: map[string][]symbol{}, prefix: prefix}
	for i, m := range merges {
		a, ok1 := ids[m[0]]
		c, ok2 := ids[m[1]]
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("merge %d (%q %q): token not in vocabulary", i, m[0], m[1])
		}
		right := m[1]
		if prefix != "" && len(right) >= len(prefix) && right[:len(prefix)] == prefix {
			right = right[len(prefix):]
		}
		nid, ok := ids[m[0]+right]
		if !ok {
			return nil, fmt.Errorf("merge %d (%q %q): merged token not in vocabulary", i, m[0], m[1])
		}
		b.merges.put(uint64(uint32(a))<<32|uint64(uint32(c)), mergeVal{int32(i), int32(nid)})
	}
	b.initBytes()
	return b, nil
}

func (b *BPE) initBytes() {
	for i := range b.byteIDs {
		if id, ok := b.ids[fmt.Sprintf("<0x%02X>", i)]; ok {
			b.byteIDs[i] = int32(id)
		} else {
			b.byteIDs[i] = -1
		}
	}
}

// symbol is one token of a word being merged: id and byte length.
type symbol struct {
	id         int32
	prev, next int32
	n          int32
}

type mergeItem struct{ pos, rank, id int32 }
type mergeHeap []mergeItem

func (h mergeHeap) Len() int { return len(h) }
func (h mergeHeap) Less(i, j int) bool {
	if h[i].rank != h[j].rank {
		return h[i].rank < h[j].rank
	}
	return h[i].pos < h[j].pos
}
func (h mergeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)   { *h = append(*h, x.(mergeItem)) }
func (h *mergeHeap) Pop() any     { o := *h; x := o[len(o)-1]; *h = o[:len(o)-1]; return x }

func (b *BPE) tokenize(s string) ([]token, error) {
	if s == "" {
		return nil, nil
	}
	if b.ignoreMerges {
		if id, ok := b.ids[s]; ok {
			return []token{{id: id, value: s, s: 0, e: len(s)}}, nil
		}
	}
	b.mu.RLock()
	syms, ok := b.cache[s]
	b.mu.RUnlock()
	if !ok {
		var err error
		if syms, err = b.mergeWord(s); err != nil {
			return nil, err
		}
		if len(s) < 256 {
			b.mu.Lock()
			if len(b.cache) < bpeCacheCap {
				b.cache[s] = syms
			}
			b.mu.Unlock()
		}
	}
	out := make([]token, 0, len(syms))
	off := 0
	for _, y := range syms {
		out = append(out, token{id: int(y.id), value: b.toks[int(y.id)], s: off, e: off + int(y.n)})
		off += int(y.n)
	}
	return out, nil
}

func (b *BPE) mergeWord(w string) ([]symbol, error) {
	syms := make([]symbol, 0, len(w))
	add := func(id int32, n int) {
		syms = append(syms, symbol{id: id, prev: int32(len(syms)) - 1, next: int32(len(syms)) + 1, n: int32(n)})
	}
	unkID, unkLen := int32(-1), 0
	for i := 0; i < len(w); {
		_, sz := utf8.DecodeRuneInString(w[i:])
		s := w[i : i+sz]
		if i > 0 && b.prefix != "" {
			s = b.prefix + s
		}
		if i+sz == len(w) && b.suffix != "" {
			s += b.suffix
		}
		i += sz
		if id, ok := b.ids[s]; ok {
			if unkID >= 0 {
				add(unkID, unkLen)
				unkID = -1
			}
			add(int32(id), sz)
			continue
		}
		if b.byteFallback {
			all := true
			for j := 0; j < len(s); j++ {
				if b.byteIDs[s[j]] < 0 {
					all = false
					break
				}
			}
			if all {
				for j := 0; j < len(s); j++ {
					add(b.byteIDs[s[j]], 1)
				}
				continue
			}
		}
		if b.unk != "" {
			uid, ok := b.ids[b.unk]
			if !ok {
				return nil, fmt.Errorf("unk token %q is not in the vocabulary", b.unk)
			}
			switch {
			case unkID >= 0 && b.fuseUnk:
				unkLen += sz
			case unkID >= 0:
				add(unkID, unkLen)
				unkID, unkLen = int32(uid), sz
			default:
				unkID, unkLen = int32(uid), sz
			}
		}
	}
	if unkID >= 0 {
		add(unkID, unkLen)
	}
	if len(syms) > 0 {
		syms[len(syms)-1].next = -1
	}
	b.mergeAll(syms)
	out := syms[:0:0]
	for _, y := range syms {
		if y.n > 0 {
			out = append(out, y)
		}
	}
	return out, nil
}

// mergeAll applies merges lowest rank first, leftmost first among equals.
func (b *BPE) mergeAll(syms []symbol) {
	h := make(mergeHeap, 0, len(syms))
	for i := 0; i+1 < len(syms); i++ {
		if m, ok := b.merges.get(syms[i].id, syms[i+1].id); ok {
			h = append(h, mergeItem{int32(i), m.rank, m.id})
		}
	}
	heap.Init(&h)
	for h.Len() > 0 {
		top := heap.Pop(&h).(mergeItem)
		cur := &syms[top.pos]
		if cur.n == 0 || cur.next == -1 {
			continue
		}
		nextPos := cur.next
		right := syms[nextPos]
		if m, ok := b.merges.get(cur.id, right.id); !ok || m.id != top.id {
			continue
		}
		cur.id = top.id
		cur.n += right.n
		cur.next = right.next
		syms[nextPos].n = 0
		if right.next > -1 && int(right.next) < len(syms) {
			syms[right.next].prev = top.pos
		}
		if cur.prev >= 0 {
			if m, ok := b.merges.get(syms[cur.prev].id, cur.id); ok {
				heap.Push(&h, mergeItem{cur.prev, m.rank, m.id})
			}
		}
		if cur.next > -1 && int(cur.next) < len(syms) {
			if m, ok := b.merges.get(cur.id, syms[cur.next].id); ok {
				heap.Push(&h, mergeItem{top.pos, m.rank, m.id})
			}
		}
	}
}
