// Package synth makes keyword-spotting training clips: words spoken by the
// espeak-ng and flite synthesisers (run as programs) in many voices,
// speeds and pitches, then augmented in Go (noise from real recordings,
// reverberation, speed, gain, time shift), deterministically for a seed.
//
// Where things are:
//
//	tts.go      the synthesisers: finding the programs, one utterance → samples
//	augment.go  sox-style augmentation (noise, reverb, speed, gain, shift)
//	plan.go     the plan: which word, voice and augmentation each clip gets
//	run.go      running a plan in parallel into WAV files and list files
package synth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"paddle/core/audio"
	"paddle/core/hub"
)

// Voice is one synthesiser setting: an engine with its voice name and
// prosody. Speed is words per minute for espeak-ng and a duration factor
// for flite (1 = normal, 1.2 = slower); Pitch is espeak's 0-99 pitch or
// flite's mean F0 in Hz (0: the voice's own).
type Voice struct {
	Engine string  `json:"engine"` // "espeak-ng" or "flite"
	Name   string  `json:"voice"`  // "en-us+f3", "slt"
	Speed  float64 `json:"speed"`
	Pitch  float64 `json:"pitch"`
}

// String is a short id, safe in file names: "espeak-ng_en-us+f3_s160_p50".
func (v Voice) String() string {
	return fmt.Sprintf("%s_%s_s%g_p%g", v.Engine, v.Name, v.Speed, v.Pitch)
}

// ErrNoEngine marks a synthesiser that is not installed.
var ErrNoEngine = errors.New("synthesiser not found")

// Engines locates the synthesiser programs.
type Engines struct {
	Espeak string // path of espeak-ng (or its wrapper script); "" if absent
	Flite  string // path of flite; "" if absent
	// Festival is the path of festival (the wrapper scripts/fetch_festival.sh
	// writes); "" if absent. Only used when a plan asks for it.
	Festival string
}

// FindEngines looks for espeak-ng and flite: $PADDLE_ESPEAK / $PADDLE_FLITE,
// then the wrappers scripts/fetch_espeak.sh puts in the cache
// (tools/espeak-ng/bin, tools/flite/bin), then $PATH.
func FindEngines() Engines {
	find := func(env, name string) string {
		if p := os.Getenv(env); p != "" {
			return p
		}
		if p := filepath.Join(hub.CacheDir(), "tools", name, "bin", name); isExec(p) {
			return p
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
		return ""
	}
	return Engines{Espeak: find("PADDLE_ESPEAK", "espeak-ng"), Flite: find("PADDLE_FLITE", "flite"), Festival: find("PADDLE_FESTIVAL", "festival")}
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// Check returns an error naming the engines a voice list needs and lacks.
func (e Engines) Check(voices []Voice) error {
	need := map[string]bool{}
	for _, v := range voices {
		need[v.Engine] = true
	}
	for eng := range need {
		if _, err := e.path(eng); err != nil {
			return err
		}
	}
	return nil
}

func (e Engines) path(engine string) (string, error) {
	switch engine {
	case RecordedEngine:
		return "", nil // no program: the recordings are read by sayRecorded
	case "espeak-ng":
		if e.Espeak == "" {
			return "", fmt.Errorf("espeak-ng: %w (looked at $PADDLE_ESPEAK, %s, $PATH)\nhint: run scripts/fetch_espeak.sh",
				ErrNoEngine, filepath.Join(hub.CacheDir(), "tools", "espeak-ng", "bin", "espeak-ng"))
		}
		return e.Espeak, nil
	case "flite":
		if e.Flite == "" {
			return "", fmt.Errorf("flite: %w (looked at $PADDLE_FLITE, %s, $PATH)\nhint: run scripts/fetch_espeak.sh, or use espeak-ng voices only",
				ErrNoEngine, filepath.Join(hub.CacheDir(), "tools", "flite", "bin", "flite"))
		}
		return e.Flite, nil
	case "festival":
		if e.Festival == "" {
			return "", fmt.Errorf("festival: %w (looked at $PADDLE_FESTIVAL, %s, $PATH)\nhint: run scripts/fetch_festival.sh",
				ErrNoEngine, filepath.Join(hub.CacheDir(), "tools", "festival", "bin", "festival"))
		}
		return e.Festival, nil
	}
	return "", fmt.Errorf("unknown synthesiser %q (known: %s, %s)", engine, strings.Join(Synthesisers, ", "), RecordedEngine)
}

// Synthesisers are the speech synthesisers (programs) Engines runs, in the
// order messages list them; RecordedEngine reads recordings instead.
var Synthesisers = []string{"espeak-ng", "flite", "festival"}

// Say synthesises text with voice v and returns mono samples at the
// engine's rate (espeak-ng 22050 Hz, flite 16000 Hz for its 16 kHz voices);
// a recorded voice returns its recording of the word.
func (e Engines) Say(ctx context.Context, text string, v Voice) (*audio.Audio, error) {
	if v.Engine == RecordedEngine {
		return sayRecorded(text, v)
	}
	prog, err := e.path(v.Engine)
	if err != nil {
		return nil, err
	}
	// Both write a WAV file: espeak-ng's --stdout header declares a
	// streaming data size (0x7ffff000) that a strict reader refuses.
	f, err := os.CreateTemp("", "paddle-tts-*.wav")
	if err != nil {
		return nil, err
	}
	tmp := f.Name()
	f.Close()
	defer os.Remove(tmp)
	var args []string
	switch v.Engine {
	case "espeak-ng":
		args = []string{"-v", v.Name, "-w", tmp}
		if v.Speed > 0 {
			args = append(args, "-s", strconv.Itoa(int(v.Speed)))
		}
		if v.Pitch > 0 {
			args = append(args, "-p", strconv.Itoa(int(v.Pitch)))
		}
		args = append(args, "--", text)
	case "flite":
		args = append(fliteArgs(v), "-t", text, "-o", tmp)
	case "festival":
		args = festivalArgs(text, v, tmp)
	}
	cmd := exec.CommandContext(ctx, prog, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %q (%s): %w: %s", v.Engine, text, v, err, bytes.TrimSpace(stderr.Bytes()))
	}
	a, err := audio.ReadWAV(tmp)
	if err != nil {
		return nil, fmt.Errorf("%s %q (%s): %w", v.Engine, text, v, err)
	}
	if a.Len() == 0 {
		return nil, fmt.Errorf("%s %q (%s): no samples (unknown voice?): %s", v.Engine, text, v, bytes.TrimSpace(stderr.Bytes()))
	}
	return a, nil
}

// fliteArgs are flite's voice options: voice, duration stretch (Speed),
// mean F0 target (Pitch Hz, > 0).
func fliteArgs(v Voice) []string {
	args := []string{"-voice", v.Name}
	if v.Speed > 0 {
		args = append(args, "--setf", "duration_stretch="+strconv.FormatFloat(v.Speed, 'g', -1, 64))
	}
	if v.Pitch > 0 {
		args = append(args, "--setf", "int_f0_target_mean="+strconv.FormatFloat(v.Pitch, 'g', -1, 64))
	}
	return args
}

// festivalArgs is a festival batch run that selects voice_<Name>, stretches
// durations by Speed, moves the mean F0 target to Pitch Hz (> 0; the
// diphone voices' linear-regression intonation) and saves a RIFF file.
func festivalArgs(text string, v Voice, out string) []string {
	return append(festivalVoiceArgs(v), `(utt.save.wave (utt.synth (Utterance Text "`+festivalQuote(text)+`")) "`+festivalQuote(out)+`" 'riff)`)
}

// festivalVoiceArgs select and set up voice v.
func festivalVoiceArgs(v Voice) []string {
	args := []string{"-b", "(voice_" + v.Name + ")"}
	if v.Speed > 0 {
		args = append(args, "(Parameter.set 'Duration_Stretch "+strconv.FormatFloat(v.Speed, 'g', -1, 64)+")")
	}
	if v.Pitch > 0 {
		args = append(args, "(set! int_lr_params '((target_f0_mean "+strconv.FormatFloat(v.Pitch, 'g', -1, 64)+
			") (target_f0_std 15) (model_f0_mean 170) (model_f0_std 34)))")
	}
	return args
}

// festivalQuote escapes s for a Scheme string literal.
func festivalQuote(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
}
