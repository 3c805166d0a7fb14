package clas

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	pio "paddle/core/io"
	"paddle/datasets"
)

// newCmdDataset is `paddle clas dataset mnist|digits`, an alias of `paddle
// dataset build mnist|digits` (datasets/catalog): both run WriteDataset.
func newCmdDataset(f *cmdutil.Factory) *cobra.Command {
	var output, source string
	cmd := &cobra.Command{
		Use:   "dataset mnist|digits --output DIR",
		Short: "Write MNIST or sklearn's digits as class folders with PaddleClas list files",
		Long: "Writes DIR/images/<split>/<class>/<n>.png, DIR/train_list.txt and DIR/test_list.txt\n" +
			"(`images/train/3/00042.png 3` per line) and DIR/label_list.txt (`id name`), the layout\n" +
			"PaddleClas's ImageNetDataset and `paddle clas` read.",
		Example: "  paddle clas dataset mnist --output data/mnist\n  paddle clas dataset digits --output data/digits",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] != "mnist" && args[0] != "digits" {
				return cmdutil.FlagErrorf("dataset %q: want mnist or digits", args[0])
			}
			if output == "" {
				return cmdutil.FlagErrorf("--output is required")
			}
			return WriteDataset(cmdutil.DatasetEnv(f), args[0], source, output)
		},
	}
	cmd.Flags().StringVar(&output, "output", "", "folder to write")
	cmd.Flags().StringVar(&source, "source", "", "MNIST IDX folder or digits.csv.gz (default: found automatically)")
	return cmd
}

// WriteDataset writes MNIST (name "mnist") or sklearn's digits ("digits")
// from source (an MNIST IDX folder or digits.csv.gz; "" finds the pulled
// copy) into output as class folders with PaddleClas list files.
func WriteDataset(env datasets.Env, name, source, output string) error {
	splits := map[string]*Images{}
	switch name {
	case "mnist":
		for _, s := range []string{"train", "test"} {
			img, err := LoadMNIST(source, s)
			if err != nil {
				return err
			}
			splits[s] = img
		}
	case "digits":
		all, err := LoadDigits(source)
		if err != nil {
			return err
		}
		splits["train"], splits["test"] = splitDigits(all, "train"), splitDigits(all, "test")
	default:
		return fmt.Errorf("clas data set %q: want mnist or digits", name)
	}
	for _, s := range []string{"train", "test"} {
		imgs := splits[s]
		var list strings.Builder
		bar := env.Bar(imgs.N, "writing "+s)
		for i := range imgs.N {
			rel := filepath.Join("images", s, fmt.Sprint(imgs.Labels[i]), fmt.Sprintf("%05d.png", i))
			if err := writeGrayPNG(filepath.Join(output, rel), imgs.Image(i), imgs.W, imgs.H); err != nil {
				return err
			}
			fmt.Fprintf(&list, "%s %d\n", filepath.ToSlash(rel), imgs.Labels[i])
			bar.Add(1)
		}
		bar.Finish()
		if err := pio.WriteFileAtomic(filepath.Join(output, s+"_list.txt"), []byte(list.String()), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout(), "%s: %d images -> %s\n", s, imgs.N, filepath.Join(output, s+"_list.txt"))
	}
	var labels strings.Builder
	for c := range 10 {
		fmt.Fprintf(&labels, "%d %d\n", c, c)
	}
	return pio.WriteFileAtomic(filepath.Join(output, "label_list.txt"), []byte(labels.String()), 0o644)
}

func writeGrayPNG(path string, pix []uint8, w, h int) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	img := &image.Gray{Pix: pix, Stride: w, Rect: image.Rect(0, 0, w, h)}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return err
	}
	return pio.WriteFileAtomic(path, buf.Bytes(), 0o644)
}

// digitsTrain is how many of sklearn's 1,797 digits form the training split.
const digitsTrain = 1500

// splitDigits returns the first 1,500 digits (train) or the other 297 (test).
func splitDigits(all *Images, split string) *Images {
	lo, hi := 0, digitsTrain
	if split != "train" {
		lo, hi = digitsTrain, all.N
	}
	return &Images{N: hi - lo, H: all.H, W: all.W, Classes: all.Classes,
		Pix: all.Pix[lo*all.H*all.W : hi*all.H*all.W], Labels: all.Labels[lo:hi]}
}
