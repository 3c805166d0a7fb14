package pdparams

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// checkLengths walks the pickle's opcodes (as Python's pickletools.genops
// does) without running them and checks that every counted argument fits
// in the bytes that remain. The unpickler allocates a counted argument
// before reading it, so without this a few corrupt bytes could ask for
// gigabytes.
func checkLengths(b []byte) error {
	le := binary.LittleEndian
	pos := 0
	need := func(n uint64, what string) error {
		if n > uint64(len(b)-pos) {
			return fmt.Errorf("pickle: %s of %d bytes at offset %d runs past the end (%d bytes)", what, n, pos, len(b))
		}
		return nil
	}
	for pos < len(b) {
		op := b[pos]
		pos++
		var n uint64 // bytes of argument that follow
		switch op {
		case '(', '.', '0', '1', '2', 'N', ']', 'a', 'e', 'b', 'd', '}', 'l', 'o', 'R', 's', 'u', 't', ')', 'Q',
			0x81, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8f, 0x90, 0x91, 0x92, 0x93, 0x94, 0x97, 0x98:
		case 'K', 'h', 'q', 0x80, 0x82:
			n = 1
		case 'M', 0x83:
			n = 2
		case 'J', 'j', 'r', 0x84:
			n = 4
		case 'G':
			n = 8
		case 0x95: // FRAME: its length, then opcodes as usual
			if err := need(8, "frame header"); err != nil {
				return err
			}
			pos += 8
			if err := need(le.Uint64(b[pos-8:]), "frame"); err != nil {
				return err
			}
			continue
		case 'I', 'L', 'F', 'S', 'V', 'P', 'g', 'p', 'c', 'i':
			lines := 1
			if op == 'c' || op == 'i' {
				lines = 2
			}
			for range lines {
				nl := bytes.IndexByte(b[pos:], '\n')
				if nl < 0 {
					return fmt.Errorf("pickle: opcode %q at offset %d: line without end", op, pos-1)
				}
				pos += nl + 1
			}
			continue
		case 'U', 'C', 0x8c, 0x8a:
			if err := need(1, "length"); err != nil {
				return err
			}
			n = 1 + uint64(b[pos])
		case 'T', 'B', 'X', 0x8b:
			if err := need(4, "length"); err != nil {
				return err
			}
			n = 4 + uint64(le.Uint32(b[pos:]))
		case 0x8d, 0x8e, 0x96:
			if err := need(8, "length"); err != nil {
				return err
			}
			l := le.Uint64(b[pos:])
			if l > uint64(len(b)) {
				return fmt.Errorf("pickle: argument of %d bytes at offset %d runs past the end (%d bytes)", l, pos, len(b))
			}
			n = 8 + l
		default:
			return fmt.Errorf("pickle: unknown opcode 0x%02x at offset %d", op, pos-1)
		}
		if err := need(n, "argument"); err != nil {
			return err
		}
		pos += int(n)
		if op == '.' {
			return nil
		}
	}
	return fmt.Errorf("pickle: no STOP opcode (truncated file)")
}
