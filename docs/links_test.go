// Package docs_test checks what the repository's text cites: code, tests
// and documents cite docs/<file>.md#<anchor>, or a section by its quoted
// name, for the why of what they do, and name the files that do it, the
// tests that check it and the make targets that run it; a heading, a file, a
// test or a target renamed would leave those citations pointing nowhere.
package docs_test

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode"
)

// root is the repository, from this package's directory.
const root = ".."

// skipped are directories of built or fetched files, not written here.
var skipped = map[string]bool{".git": true, "node_modules": true, "build": true, "bin": true, "artifacts": true}

// cited are the kinds of file whose text may cite docs/, besides the Makefile.
var cited = map[string]bool{".go": true, ".js": true, ".md": true, ".css": true, ".html": true, ".sh": true, ".yml": true, ".yaml": true}

var (
	// citation is docs/<file>.md with its anchor, if any, as code and
	// documents outside docs/ write it.
	citation = regexp.MustCompile(`docs/([A-Za-z0-9_-]+\.md)(#[A-Za-z0-9_-]+)?`)
	// named is docs/<file>.md followed by a heading's text in quotes, the
	// way a comment cites a section by its name: (docs/<file>.md, "Heading").
	// It is read from the comment's lines joined (commentLines), so a name
	// wrapped onto the next line is read whole.
	named = regexp.MustCompile(`docs/([A-Za-z0-9_-]+\.md),? "([^"]+)"`)
	// repoPath is a path from the repository's root to one of its files:
	// one of its source folders, then at least a name with an extension,
	// not itself part of a longer path or name (a Go identifier such as
	// app/boot.Config has no extension of a file's kind).
	repoPath = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])((?:app|server|venueapi|web|docs|\.ci)/(?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.(?:go|js|css|md|html|sh|json|png|svg|wasm|br|gz|yml|yaml|tsv|txt))\b`)
	// testFunc is a test's or benchmark's declaration in a _test.go file.
	testFunc = regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz|Example)[A-Za-z0-9_]*)\(`)
	// testName is a test or benchmark named in text: a whole identifier,
	// not a package's (app.TestEngine) or part of a longer one.
	testName = regexp.MustCompile(`(?:^|[^.A-Za-z0-9_])((?:Test|Benchmark)[A-Z][A-Za-z0-9_]*)`)
	// makeCommand is a make command written as code: `make bench`.
	makeCommand = regexp.MustCompile("`make ([a-z][a-z-]*)")
	// makeTarget is a rule's target at the start of a Makefile line.
	makeTarget = regexp.MustCompile(`(?m)^([a-z][a-z-]*):`)
	// commentMark is what opens a line of a comment in the files cited
	// from: Go's and JavaScript's //, a block comment's * and /*, and the
	// Makefile's, the shell's and YAML's #.
	commentMark = regexp.MustCompile(`^\s*(?://+|/\*+|\*+|#+)?\s*`)
	// link is a Markdown link's target within the repository: a file
	// ending .md, an anchor, or both.
	link = regexp.MustCompile(`\]\(((?:\.\./|\./)?[A-Za-z0-9_./-]*\.md)?(#[^\s)]*)?\)`)
	// heading is a Markdown heading line.
	heading = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	// linkText is a Markdown link, whose text alone a heading's anchor keeps.
	linkText = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	// explicit is an anchor an HTML element names.
	explicit = regexp.MustCompile(`<a (?:id|name)="([^"]+)"`)
)

// slug is a heading's anchor as GitHub writes it: lower case, each space a
// hyphen, and every character but letters, digits, '-' and '_' left out.
func slug(text string) string {
	text = linkText.ReplaceAllString(text, "$1")
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

// anchors reads the anchors of a Markdown file's text: its headings' (a
// repeated one numbered -1, -2, … as GitHub does) and those written as <a id>.
func anchors(text string) map[string]bool {
	got, seen := map[string]bool{}, map[string]int{}
	fenced := false
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if fenced {
			continue
		}
		for _, m := range explicit.FindAllStringSubmatch(line, -1) {
			got[m[1]] = true
		}
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s := slug(m[1])
		if n := seen[s]; n > 0 {
			seen[s]++
			s += "-" + strconv.Itoa(n)
		} else {
			seen[s] = 1
		}
		got[s] = true
	}
	return got
}

// TestEveryLinkIntoDocsFindsItsHeading: every docs/<file>.md#<anchor> a
// file of the repository cites, and every link between the Markdown files,
// names a file there is and a heading (or an <a id>) that file has.
func TestEveryLinkIntoDocsFindsItsHeading(t *testing.T) {
	// Every target is a Markdown file, which the walk has read: one it did
	// not read is not in the repository.
	texts := map[string]string{} // by path from the root
	eachCitingFile(t, func(rel, text string) { texts[rel] = text })
	known := map[string]map[string]bool{} // anchors, by path from the root
	anchorsOf := func(rel string) (map[string]bool, bool) {
		if a, ok := known[rel]; ok {
			return a, true
		}
		text, ok := texts[rel]
		if !ok {
			return nil, false
		}
		known[rel] = anchors(text)
		return known[rel], true
	}
	check := func(from, target, anchor, as string) {
		a, ok := anchorsOf(target)
		switch {
		case !ok:
			t.Errorf("%s: %s names %s, which is not in the repository", from, as, target)
		case anchor != "" && !a[strings.TrimPrefix(anchor, "#")]:
			t.Errorf("%s: %s names %s, which has no heading with the anchor %s", from, as, target, anchor)
		}
	}
	links := 0
	eachCitingFile(t, func(rel, text string) {
		for _, m := range named.FindAllStringSubmatch(commentLines(text), -1) {
			links++
			check(rel, "docs/"+m[1], "#"+slug(m[2]), m[0])
		}
		for _, i := range citation.FindAllStringSubmatchIndex(text, -1) {
			if strings.HasSuffix(text[:i[0]], "](") {
				continue // a Markdown link: checked below
			}
			m := func(k int) string {
				if i[2*k] < 0 {
					return ""
				}
				return text[i[2*k]:i[2*k+1]]
			}
			links++
			check(rel, "docs/"+m(1), m(2), m(0))
		}
		if filepath.Ext(rel) != ".md" {
			return
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target, anchor := m[1], m[2]
			if target == "" && anchor == "" {
				continue
			}
			links++
			if target == "" {
				target = rel // an anchor of the same file
			} else {
				target = filepath.ToSlash(filepath.Clean(filepath.Join(dir, target)))
			}
			if strings.HasPrefix(target, "../") {
				t.Errorf("%s: %s names %s, outside the repository: the documents cite only what is in it", rel, m[0], target)
				continue
			}
			check(rel, target, anchor, m[0])
		}
	})
	if links < 100 {
		t.Fatalf("found %d links into the documents; the repository has hundreds: the walk missed them", links)
	}
}

// citingFile is a file of the repository that may cite another: its path
// from the root, and its text.
type citingFile struct{ rel, text string }

// citingFiles reads, once for all the tests, every file of the repository
// that may cite another: the kinds in cited and the Makefile, outside the
// built and fetched directories, in the walk's order.
var citingFiles = sync.OnceValues(func() ([]citingFile, error) {
	var files []citingFile
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skipped[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if !cited[filepath.Ext(d.Name())] && d.Name() != "Makefile" || strings.HasSuffix(d.Name(), ".min.js") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		files = append(files, citingFile{filepath.ToSlash(rel), string(b)})
		return nil
	})
	return files, err
})

// eachCitingFile calls fn with the path from the root and the text of every
// file citingFiles reads.
func eachCitingFile(t *testing.T, fn func(rel, text string)) {
	t.Helper()
	files, err := citingFiles()
	if err != nil {
		t.Fatalf("walking the repository: %v", err)
	}
	for _, f := range files {
		fn(f.rel, f.text)
	}
}

// TestEveryFileCitedIsInTheRepository: a path from the repository's root
// that code, tests and documents name, such as server/internal/bundle/sketch.go
// or web/app-start.js, is a file or folder of the repository, or one the
// build makes (a path .gitignore names as a build output): a file renamed
// or removed would leave the reader looking for it.
func TestEveryFileCitedIsInTheRepository(t *testing.T) {
	built := builtPaths(t)
	found := map[string]bool{} // by path, each looked for once
	exists := func(p string) bool {
		ok, seen := found[p]
		if !seen {
			_, err := os.Stat(filepath.Join(root, filepath.FromSlash(p)))
			ok = err == nil || slices.ContainsFunc(built, func(pattern string) bool {
				m, _ := path.Match(pattern, p)
				return m
			})
			found[p] = ok
		}
		return ok
	}
	cites := 0
	eachCitingFile(t, func(rel, text string) {
		for _, m := range repoPath.FindAllStringSubmatch(text, -1) {
			cites++
			if !exists(m[1]) {
				t.Errorf("%s: names %s, which is neither in the repository nor one of the build's outputs (.gitignore)", rel, m[1])
			}
		}
	})
	if cites < 100 {
		t.Fatalf("found %d paths cited; the repository has hundreds: the walk missed them", cites)
	}
}

// TestEveryTestCitedIsATest: a test or benchmark that code and documents
// name for what it checks or measures (TestChartFirstPaint,
// BenchmarkStartUp) is a function some _test.go file of the repository
// defines: one renamed or removed would leave the claim unbacked.
func TestEveryTestCitedIsATest(t *testing.T) {
	defined := map[string]bool{}
	eachCitingFile(t, func(rel, text string) {
		if strings.HasSuffix(rel, "_test.go") {
			for _, m := range testFunc.FindAllStringSubmatch(text, -1) {
				defined[m[1]] = true
			}
		}
	})
	if len(defined) < 100 {
		t.Fatalf("found %d tests defined; the repository has hundreds: the walk missed them", len(defined))
	}
	eachCitingFile(t, func(rel, text string) {
		for _, m := range testName.FindAllStringSubmatch(text, -1) {
			if !defined[m[1]] {
				t.Errorf("%s: names %s, which no _test.go file of the repository defines", rel, m[1])
			}
		}
	})
}

// TestEveryMakeTargetCitedIsOne: a make target the text names as a command
// (`make trace-startup`) is a target of the Makefile.
func TestEveryMakeTargetCitedIsOne(t *testing.T) {
	targets := map[string]bool{}
	eachCitingFile(t, func(rel, text string) {
		if rel == "Makefile" {
			for _, m := range makeTarget.FindAllStringSubmatch(text, -1) {
				targets[m[1]] = true
			}
		}
	})
	if len(targets) == 0 {
		t.Fatal("found no target in the Makefile: the walk missed it")
	}
	cites := 0
	eachCitingFile(t, func(rel, text string) {
		for _, m := range makeCommand.FindAllStringSubmatch(text, -1) {
			cites++
			if !targets[m[1]] {
				t.Errorf("%s: names `make %s`, which is not a target of the Makefile", rel, m[1])
			}
		}
	})
	if cites < 50 {
		t.Fatalf("found %d make commands cited; the repository has over a hundred: the walk missed them", cites)
	}
}

// builtPaths are the build outputs .gitignore names from the root (its
// lines beginning with /), as path.Match patterns.
func builtPaths(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, ".gitignore"))
	if err != nil {
		t.Fatalf("reading .gitignore: %v", err)
	}
	var got []string
	for _, line := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "/"); ok {
			got = append(got, strings.TrimSuffix(p, "/"))
		}
	}
	return got
}

// commentLines is text with each line's comment mark and indentation taken
// off and the lines joined by a space, so that a quoted name a comment wraps
// reads as one.
func commentLines(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(commentMark.ReplaceAllString(l, ""), " \t\r")
	}
	return strings.Join(lines, " ")
}

// TestSlugWritesAnchorsAsGitHubDoes: the anchors the check above expects
// are the ones a reader's browser goes to.
func TestSlugWritesAnchorsAsGitHubDoes(t *testing.T) {
	for _, tc := range []struct{ heading, want string }{
		{"The stale flag and the delivery", "the-stale-flag-and-the-delivery"},
		{"`app.wasm` on the wire", "appwasm-on-the-wire"},
		{"Go's first run, by function", "gos-first-run-by-function"},
		{"wasm-opt (Debian's binaryen 108), tried and not kept", "wasm-opt-debians-binaryen-108-tried-and-not-kept"},
		{"Start-up: where the time goes", "start-up-where-the-time-goes"},
		{"Size per package (`make wasm-size`)", "size-per-package-make-wasm-size"},
		{"Go's data segments, merged", "gos-data-segments-merged"},
		{"The [venue](venue.md) as we read it", "the-venue-as-we-read-it"},
		{"read_file and CAPS", "read_file-and-caps"},
	} {
		if got := slug(tc.heading); got != tc.want {
			t.Errorf("slug(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
}
