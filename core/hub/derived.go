package hub

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Derived files are files paddle makes from a store model on the user's
// machine (an int8 quantization of a store ONNX model), kept beside it so
// they are made once. Each FILE has a sidecar FILE.json recording its
// sha256, size and the Key of the recipe that made it; Derive hashes the
// file on every use, like Verify does for pulled files, and remakes it when
// the hash, the size or the key differ. Pulling the model again replaces its
// folder, and with it every derived file.

// derivedRecord is a derived file's sidecar.
type derivedRecord struct {
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	Key    string `json:"key"`
}

// DeriveResult says what Derive did.
type DeriveResult struct {
	Path  string // the derived file
	Built bool   // made now (false: the cached file was used)
	// Stale, when Built, says why a cached file was not used ("" when there
	// was none): a sha256, size or recipe key mismatch, or an unreadable sidecar.
	Stale string
}

// Derive returns the derived file name in dir, making it with build when it
// is missing or does not match its sidecar (sha256, size, key). build
// writes the file at the path it is given (a temporary name in dir, renamed
// into place once the sidecar is written), so an interrupted build leaves
// no file that looks complete. key names the recipe: the inputs and
// settings the file is made from; a different key remakes it.
func Derive(dir, name, key string, build func(path string) error) (DeriveResult, error) {
	path := filepath.Join(dir, name)
	res := DeriveResult{Path: path}
	stale, err := checkDerived(path, key)
	if err != nil {
		return res, err
	}
	if stale == "" {
		return res, nil
	}
	if stale != "missing" {
		res.Stale = stale
	}
	tmp, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return res, fmt.Errorf("derived file %s: %w", path, err)
	}
	tmpName := tmp.Name()
	tmp.Close()
	if err := os.Chmod(tmpName, 0o644); err != nil { // CreateTemp's 0600: a store file is readable like the pulled ones
		return res, err
	}
	defer os.Remove(tmpName)
	if err := build(tmpName); err != nil {
		return res, err
	}
	sum, err := fileSHA256(tmpName)
	if err != nil {
		return res, err
	}
	fi, err := os.Stat(tmpName)
	if err != nil {
		return res, err
	}
	rec, _ := json.MarshalIndent(derivedRecord{SHA256: sum, Size: fi.Size(), Key: key}, "", "  ")
	// The sidecar first: a file in place always has its record (a crash
	// between the renames leaves a sidecar whose file is missing or old,
	// which the next use remakes).
	side := path + ".json"
	if err := os.WriteFile(side+".tmp", append(rec, '\n'), 0o644); err != nil {
		return res, fmt.Errorf("derived file %s: %w", path, err)
	}
	if err := os.Rename(side+".tmp", side); err != nil {
		return res, err
	}
	if err := os.Rename(tmpName, path); err != nil {
		return res, err
	}
	res.Built = true
	return res, nil
}

// checkDerived returns "" when path matches its sidecar and key, "missing"
// when there is no file, else why it does not match. Only an error other
// than a missing or malformed file is returned as an error.
func checkDerived(path, key string) (string, error) {
	fi, err := os.Stat(path)
	if os.IsNotExist(err) {
		return "missing", nil
	}
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(path + ".json")
	if err != nil {
		return fmt.Sprintf("%s.json: %v", path, err), nil
	}
	var rec derivedRecord
	if err := json.Unmarshal(b, &rec); err != nil || rec.SHA256 == "" {
		return fmt.Sprintf("%s.json: not a derived-file record (want {\"sha256\", \"size\", \"key\"})", path), nil
	}
	if rec.Key != key {
		return fmt.Sprintf("%s: made by recipe %q, want %q", path, rec.Key, key), nil
	}
	if fi.Size() != rec.Size {
		return fmt.Sprintf("%s: %d bytes, want %d", path, fi.Size(), rec.Size), nil
	}
	sum, err := fileSHA256(path)
	if err != nil {
		return "", err
	}
	if sum != rec.SHA256 {
		return fmt.Sprintf("%s: sha256 %s, want %s", path, sum, rec.SHA256), nil
	}
	return "", nil
}
