package ocr

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
)

func TestDrawableFont(t *testing.T) {
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	if err := drawable(f); err != nil {
		t.Errorf("Go Regular: %v", err)
	}
	// WenQuanYi's collections parse but their glyphs do not load: --draw must not
	// pick them (it drew empty boxes); skipped where fonts-wqy-zenhei is not installed.
	const wqy = "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc"
	b, err := os.ReadFile(wqy)
	if err != nil {
		t.Skip(err)
	}
	if pf, err := parseFont(b); err == nil {
		if err := drawable(pf); err == nil {
			t.Skipf("%s draws here", wqy)
		}
	}
	d, warn := NewDrawer(wqy)
	if d.font != nil || !strings.Contains(warn, "texts are not drawn") {
		t.Errorf("font %v, warning %q", d.font, warn)
	}
}
