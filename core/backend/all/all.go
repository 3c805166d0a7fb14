// Package all links in every backend compiled into this binary. Only
// cmd/paddle (and tests that need a backend) import it.
package all

import _ "paddle/core/backend/cpu" // the host backend is always present
