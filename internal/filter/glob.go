// SPDX-License-Identifier: Apache-2.0

// Glob: a shell-style pattern on a namespace or an annotation key.

package filter

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Glob matches whole strings against a shell-style pattern: '*' matches
// any run of characters ('/' included, so that "example.com/*" matches
// every key of that prefix), '?' any one character, "[...]" one character
// of a class ("[a-z]", negated by a leading '!' or '^'), and '\' takes the
// next character as it is.
type Glob struct {
	pattern string
	re      *regexp.Regexp // nil: the pattern has no wildcard, and is compared as is
}

// ParseGlob checks pattern and returns its Glob.
func ParseGlob(pattern string) (Glob, error) {
	if pattern == "" {
		return Glob{}, errors.New("empty pattern")
	}
	if !strings.ContainsAny(pattern, `*?[\`) {
		return Glob{pattern: pattern}, nil
	}
	expr, err := globRegexp(pattern)
	if err != nil {
		return Glob{}, fmt.Errorf("malformed glob %q: %w", pattern, err)
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return Glob{}, fmt.Errorf("malformed glob %q: %w", pattern, err)
	}
	return Glob{pattern: pattern, re: re}, nil
}

// Match tells whether s matches the whole pattern.
func (g Glob) Match(s string) bool {
	if g.re == nil {
		return s == g.pattern
	}
	return g.re.MatchString(s)
}

// String is the pattern as written.
func (g Glob) String() string { return g.pattern }

// globRegexp translates a glob into an anchored regular expression.
func globRegexp(pattern string) (string, error) {
	var b strings.Builder
	b.WriteString(`\A(?s:`)
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '\\':
			if i+1 == len(pattern) {
				return "", errors.New(`'\' at the end`)
			}
			i++
			b.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
		case '[':
			class, n, err := globClass(pattern[i:])
			if err != nil {
				return "", err
			}
			b.WriteString(class)
			i += n - 1
		default:
			b.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
		}
	}
	b.WriteString(`)\z`)
	return b.String(), nil
}

// globClass translates the class that s begins with ("[...]") and returns
// how many bytes of s it took.
func globClass(s string) (string, int, error) {
	var b strings.Builder
	b.WriteByte('[')
	i := 1
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		b.WriteByte('^')
		i++
	}
	start := i
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c == ']' && i > start:
			b.WriteByte(']')
			return b.String(), i + 1, nil
		case c == '\\':
			if i+1 == len(s) {
				return "", 0, errors.New(`'\' at the end`)
			}
			i++
			b.WriteString(regexp.QuoteMeta(s[i : i+1]))
		case c == '-' && i > start && i+1 < len(s) && s[i+1] != ']':
			b.WriteByte('-')
		default:
			b.WriteString(regexp.QuoteMeta(s[i : i+1]))
		}
	}
	return "", 0, errors.New("'[' without its ']'")
}
