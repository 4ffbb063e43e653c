package seed

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// DictPath is the word list of Debian's wamerican package. The seed's
// bibliographic text and the k6 search workflow's query files draw from the
// same words, so most single-word queries find records.
const DictPath = "/usr/share/dict/american-english"

// ErrNoDict: the word list is not installed (Debian package wamerican).
var ErrNoDict = errors.New("the word list of the bibliographic seed is missing")

// LoadVocabulary returns the lines of the word list that are 3 to 12
// lower-case ASCII letters (no proper nouns, no possessives, no accents),
// without duplicates, in file order.
func LoadVocabulary(path string) ([]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s does not exist", ErrNoDict, path)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var words []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w := sc.Bytes()
		if !plainWord(w) || seen[string(w)] {
			continue
		}
		s := string(w)
		seen[s] = true
		words = append(words, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(words) < 100 {
		return nil, fmt.Errorf("%w: %s has only %d words of 3-12 lower-case letters (damaged?)", ErrNoDict, path, len(words))
	}
	return words, nil
}

// plainWord is the filter ^[a-z]{3,12}$.
func plainWord(w []byte) bool {
	if len(w) < 3 || len(w) > 12 {
		return false
	}
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
