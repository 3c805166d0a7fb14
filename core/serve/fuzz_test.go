package serve

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http/httptest"
	"testing"
)

// FuzzPredictBody: any request body with any Content-Type gets an answer
// from the handler, never a panic: 200 with the prediction, or a 400/413 whose
// body is a JSON error; no place is left held.
func FuzzPredictBody(f *testing.F) {
	img := testPNG(f, 3, 2)
	mp, mpBody := multipartBody(f, [3]string{"image", "a.png", string(img)})
	f.Add("image/png", img)
	f.Add("", []byte("not an image"))
	f.Add(mp, mpBody)
	f.Add("multipart/form-data; boundary=x", []byte("--x\r\nContent-Disposition: form-data; name=\"image\"\r\n\r\nabc\r\n--x--\r\n"))
	f.Add("application/json", []byte(`{"image": "`+base64.StdEncoding.EncodeToString(img)+`", "name": "j.png"}`))
	f.Add("application/json; charset=utf-8", []byte(`{"image": "data:image/png;base64,AAAA"}`))
	f.Add("application/json", []byte(`{"text": "hi", "audio": "-_-_"}`))
	f.Add("image/png; ===", img)
	s := New("fake", decodePredictor, Options{MaxBody: 4096})
	f.Fuzz(func(t *testing.T, ct string, body []byte) {
		req := httptest.NewRequest("POST", "/v1/fake", bytes.NewReader(body))
		req.Header.Set("Content-Type", ct)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		switch rec.Code {
		case 200:
		case 400, 413:
			var e map[string]string
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e["error"] == "" {
				t.Fatalf("%d with body %q, want a JSON error", rec.Code, rec.Body)
			}
		default:
			t.Fatalf("code %d (%s)", rec.Code, rec.Body)
		}
		if n := len(s.tickets) + len(s.slots); n != 0 {
			t.Fatalf("%d places held after the request", n)
		}
	})
}
