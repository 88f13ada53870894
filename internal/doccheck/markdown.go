// SPDX-License-Identifier: Apache-2.0

package doccheck

import (
	"regexp"
	"strings"
	"unicode"
)

// Link is one inline link of a Markdown file.
type Link struct {
	Line   int    // 1-based
	Target string // as written: a path, #anchor, path#anchor or URL
}

var (
	fence     = regexp.MustCompile("^ {0,3}(```+|~~~+)")
	heading   = regexp.MustCompile(`^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$`)
	codeSpan  = regexp.MustCompile("`+[^`]*`+")
	inlineURL = regexp.MustCompile(`!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	htmlTag   = regexp.MustCompile(`<[^>]*>`)
)

// proseLines calls fn for every line outside fenced code blocks.
func proseLines(markdown string, fn func(n int, line string)) {
	var open string
	for i, line := range strings.Split(markdown, "\n") {
		if m := fence.FindStringSubmatch(line); m != nil {
			switch {
			case open == "":
				open = m[1]
			case strings.HasPrefix(m[1], open[:1]) && len(m[1]) >= len(open):
				open = ""
			}
			continue
		}
		if open == "" {
			fn(i+1, line)
		}
	}
}

// Links returns the inline links outside code.
func Links(markdown string) []Link {
	var links []Link
	proseLines(markdown, func(n int, line string) {
		line = codeSpan.ReplaceAllStringFunc(line, func(s string) string {
			return strings.Repeat(" ", len(s)) // keep no link inside code
		})
		for _, m := range inlineURL.FindAllStringSubmatch(line, -1) {
			links = append(links, Link{Line: n, Target: m[2]})
		}
	})
	return links
}

// Anchors returns the anchors GitHub gives the headings of markdown.
func Anchors(markdown string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	proseLines(markdown, func(_ int, line string) {
		m := heading.FindStringSubmatch(line)
		if m == nil {
			return
		}
		slug := Slug(m[2])
		if n := seen[slug]; n > 0 {
			anchors[slug+"-"+itoa(n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	})
	return anchors
}

// Slug is GitHub's anchor for a heading: the text as rendered (links and
// markup reduced to their text), lower-cased, with every character that is
// not a letter, digit, space, hyphen or underscore removed and spaces turned
// into hyphens.
func Slug(text string) string {
	text = inlineURL.ReplaceAllString(text, "$1")
	text = htmlTag.ReplaceAllString(text, "")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + itoa(n%10)
}
