package catalog

import (
	"paddle/core/cli/synthcmd"
	"paddle/datasets"
	"paddle/kits/det"
	"paddle/kits/seg"
)

// synthSources are the packages scripts/fetch_det_data.sh takes the
// compositor's cut-outs and background photos from.
var synthSources = []datasets.Source{
	deb("tuxpaint-stamps-default", "GPL-2"), deb("python3-skimage", "CC0 / public domain (the photos used)"),
	deb("opencv-doc", "BSD-3-Clause"), deb("mate-backgrounds", "GPL-2+"),
}

// synthNeeds are paths under the cache's data/ folder that the compositor reads.
var synthNeeds = []string{".det_data_v4", "tuxpaint/usr/share/tuxpaint/stamps/animals", "backgrounds/skimage/astronaut.png"}

func detSynth() *datasets.Dataset {
	s := det.SynthSpec()
	return &datasets.Dataset{
		Name: "det-synth", Kits: []string{"det", "seg"},
		Description: "real Tux Paint photo cut-outs (8 classes) composited on real photos; boxes from the alpha (seeded)",
		Sources:     synthSources, Licence: "GPL-2 (stamps); photos CC0, BSD-3, GPL-2+",
		Size:   "161 MB download, ~36 MB kept (stamps + 30 backgrounds)",
		Splits: []datasets.Split{{Name: "train", Size: "4,000 images 320x320"}, {Name: "eval", Size: "500 images (held-out objects and backgrounds)"}},
		Layout: "COCO annotations/instances_{train,eval}.json, VOC xml + train.txt eval.txt label_list.txt, masks + seg_{train,eval}.txt labels.txt, synth.json",
		Alias:  "paddle det synth --output DIR",
		Fetch:  []string{"fetch_det_data.sh"}, Dir: "data", Needs: synthNeeds,
		Build: func(env datasets.Env, out string) error { return synthcmd.Build(env, synthcmd.Defaults(s, out)) },
	}
}

func segSynth() *datasets.Dataset {
	s := seg.SynthSpec()
	d := detSynth()
	d.Name, d.Kits = "seg-synth", []string{"seg"}
	d.Description = "the det-synth compositor at the seg kit's defaults: per-pixel class masks (255 on anti-aliased edges)"
	d.Splits = []datasets.Split{{Name: "train", Size: "2,000 images 256x256"}, {Name: "eval", Size: "200 images (held-out objects and backgrounds)"}}
	d.Layout = "images/, masks/, seg_train.txt, seg_eval.txt, labels.txt (PaddleSeg), and the det files"
	d.Alias = "paddle seg synth --output DIR"
	d.Build = func(env datasets.Env, out string) error { return synthcmd.Build(env, synthcmd.Defaults(s, out)) }
	return d
}
