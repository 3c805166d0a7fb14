package clas

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Item is one labelled image file.
type Item struct {
	Path  string // absolute or relative to the working directory
	Label int
}

// ReadList reads a PaddleClas list file: one `relative/path label_id` per
// line, paths relative to root, fields split by delim (default: space).
func ReadList(listPath, root, delim string) ([]Item, error) {
	if delim == "" {
		delim = " "
	}
	f, err := os.Open(listPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var items []Item
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		i := strings.LastIndex(text, delim)
		if i < 0 {
			return nil, fmt.Errorf("%s:%d: want `path%slabel_id`, got %q", listPath, line, delim, text)
		}
		label, err := strconv.Atoi(strings.TrimSpace(text[i+len(delim):]))
		if err != nil || label < 0 {
			return nil, fmt.Errorf("%s:%d: label %q is not a class id (a non-negative integer)", listPath, line, text[i+len(delim):])
		}
		items = append(items, Item{Path: filepath.Join(root, strings.TrimSpace(text[:i])), Label: label})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", listPath, err)
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("%s: no samples", listPath)
	}
	return items, nil
}

// ReadLabelMap reads a class-id map file (`id name` per line, PaddleClas's
// class_id_map_file) into names indexed by id.
func ReadLabelMap(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		idStr, name, _ := strings.Cut(text, " ")
		id, err := strconv.Atoi(idStr)
		if err != nil || id < 0 {
			return nil, fmt.Errorf("%s:%d: want `class_id name`, got %q", path, line, text)
		}
		for len(names) <= id {
			names = append(names, "")
		}
		names[id] = strings.TrimSpace(name)
	}
	return names, sc.Err()
}

// ReadClassFolders lists root/<class>/<image> files; classes are the sorted
// sub-folder names, numbered from 0 (ImageNet style).
func ReadClassFolders(root string) ([]Item, []string, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, nil, err
	}
	var classes []string
	for _, e := range entries {
		if e.IsDir() {
			classes = append(classes, e.Name())
		}
	}
	sort.Strings(classes)
	var items []Item
	for id, c := range classes {
		files, err := os.ReadDir(filepath.Join(root, c))
		if err != nil {
			return nil, nil, err
		}
		for _, f := range files {
			if !f.IsDir() && isImage(f.Name()) {
				items = append(items, Item{Path: filepath.Join(root, c, f.Name()), Label: id})
			}
		}
	}
	if len(items) == 0 {
		return nil, nil, fmt.Errorf("%s: no images in class folders (want %s/<class>/<image>)", root, root)
	}
	return items, classes, nil
}

func isImage(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp":
		return true
	}
	return false
}
