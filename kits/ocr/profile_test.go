package ocr

import "testing"

func TestProfileByName(t *testing.T) {
	for name, want := range map[string]string{"": "v2", "v2": "v2", "v3": "v3"} {
		if p, err := ProfileByName(name); err != nil || p.Name != want {
			t.Errorf("ProfileByName(%q) = %s, %v; want %s", name, p.Name, err, want)
		}
	}
	if _, err := ProfileByName("v4"); err == nil || err.Error() != `unknown profile "v4" (known: v2, v3)` {
		t.Errorf("ProfileByName(v4): %v", err)
	}
}
