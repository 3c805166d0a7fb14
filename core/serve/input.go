package serve

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
)

// Input is one request's payload as a kit sees it: the raw bytes of the image (or
// other input), whatever the request's encoding was.
type Input struct {
	Body        []byte // the raw input: an encoded image for image kits
	ContentType string // the input's own type when the client said it ("image/png"), else ""
	Name        string // a name for the input (multipart file name, JSON "name", ?name=), else ""
	// Params are the request's query parameters (?lang=en): per-request
	// options of kits that have them; a kit ignores the ones it does not know.
	Params url.Values
}

// jsonRequest is the JSON request body: {"image": "<base64>", "name": "..."}
// for image kits, {"audio": "<base64>"} for audio, {"text": "..."} for text.
type jsonRequest struct {
	Image string  `json:"image"`
	Audio string  `json:"audio"`
	Text  *string `json:"text"`
	Name  string  `json:"name"`
}

// wantJSON is what a JSON body may hold, for error messages.
const wantJSON = `{"image": "<base64>"}, {"audio": "<base64>"} or {"text": "..."}`

// readInput extracts the Input from a request whose body is already bounded:
// a raw body, multipart/form-data (the part named "image", else the first
// file), or JSON (see jsonRequest). Errors are the client's (400), except a
// body over the limit (*http.MaxBytesError, 413).
func readInput(r *http.Request) (Input, error) {
	in := Input{Name: r.URL.Query().Get("name"), Params: r.URL.Query()}
	ct := r.Header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	if ct != "" && err != nil {
		return in, fmt.Errorf("content type %q: %w", ct, err)
	}
	switch {
	case mt == "multipart/form-data":
		return readMultipart(r, params["boundary"], in)
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		var req jsonRequest
		dec := json.NewDecoder(r.Body)
		if err := dec.Decode(&req); err != nil {
			if isTooLarge(err) {
				return in, err
			}
			return in, fmt.Errorf("JSON body: %w (want %s)", err, wantJSON)
		}
		if req.Name != "" {
			in.Name = req.Name
		}
		switch {
		case req.Text != nil:
			in.Body, in.ContentType = []byte(*req.Text), "text/plain"
			return in, nil
		case req.Image != "" || req.Audio != "":
			key, v := "image", req.Image
			if v == "" {
				key, v = "audio", req.Audio
			}
			b, err := decodeBase64(v)
			if err != nil {
				return in, fmt.Errorf("JSON body: %q: %w", key, err)
			}
			in.Body = b
			return in, nil
		}
		return in, fmt.Errorf("JSON body: no \"image\", \"audio\" or \"text\" (want %s)", wantJSON)
	}
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return in, err
	}
	if len(b) == 0 {
		return in, errors.New("empty request body: send an image as the body, as multipart/form-data (field \"image\") or as JSON {\"image\": \"<base64>\"}")
	}
	in.Body, in.ContentType = b, mt
	if mt == "application/octet-stream" {
		in.ContentType = ""
	}
	return in, nil
}

// readMultipart returns the part named "image", else the first file part.
func readMultipart(r *http.Request, boundary string, in Input) (Input, error) {
	if boundary == "" {
		return in, errors.New("multipart body without a boundary")
	}
	mr := multipart.NewReader(r.Body, boundary)
	var first *Input
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			if isTooLarge(err) {
				return in, err
			}
			return in, fmt.Errorf("multipart body: %w", err)
		}
		isImage := p.FormName() == "image"
		if !isImage && (p.FileName() == "" || first != nil) {
			p.Close()
			continue
		}
		b, err := io.ReadAll(p)
		p.Close()
		if err != nil {
			if isTooLarge(err) {
				return in, err
			}
			return in, fmt.Errorf("multipart part %q: %w", p.FormName(), err)
		}
		got := in
		got.Body = b
		got.ContentType = p.Header.Get("Content-Type")
		if got.ContentType == "application/octet-stream" {
			got.ContentType = ""
		}
		if fn := p.FileName(); fn != "" && got.Name == "" {
			got.Name = fn
		}
		if isImage {
			first = &got
			break
		}
		first = &got
	}
	if first == nil {
		return in, errors.New(`multipart body has no field "image" and no file`)
	}
	if len(first.Body) == 0 {
		return in, errors.New("multipart image part is empty")
	}
	return *first, nil
}

// decodeBase64 accepts standard or URL-safe base64, padded or not, and a
// data: URL prefix ("data:image/png;base64,...").
func decodeBase64(s string) ([]byte, error) {
	if strings.HasPrefix(s, "data:") {
		i := strings.Index(s, ",")
		if i < 0 {
			return nil, errors.New("data URL without a comma")
		}
		s = s[i+1:]
	}
	s = strings.TrimRight(strings.TrimSpace(s), "=")
	if strings.ContainsAny(s, "-_") {
		return base64.RawURLEncoding.DecodeString(s)
	}
	b, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("not valid base64: %w", err)
	}
	return b, nil
}

func isTooLarge(err error) bool {
	var mb *http.MaxBytesError
	return errors.As(err, &mb)
}
