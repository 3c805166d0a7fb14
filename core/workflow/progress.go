package workflow

import "context"

type progressKey struct{}

// WithProgress returns ctx carrying io's progress bars, for the steps that
// get a context but no IO (Task.Eval, called from every kit's eval).
func WithProgress(ctx context.Context, io IO) context.Context {
	if io.Progress == nil {
		return ctx
	}
	return context.WithValue(ctx, progressKey{}, io.Progress)
}

// progressBar starts a bar of ctx's progress (a silent one without).
func progressBar(ctx context.Context, total int, desc string) Bar {
	p, _ := ctx.Value(progressKey{}).(func(int, string) Bar)
	return IO{Progress: p}.bar(total, desc)
}
