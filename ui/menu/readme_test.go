package menu

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"tremor/common/console"
)

// TestReadmeListsMainMenu checks that the README's list of the main
// menu's items is the main page's, in its order: a newcomer reads it
// before opening the window.
func TestReadmeListsMainMenu(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`main\s+menu\s+over\s+it\s+\(([^)]*)\)`).FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no \"main menu over it (...)\" list")
	}
	listed := strings.Fields(strings.ReplaceAll(string(m[1]), ",", " ,"))
	got := strings.Join(listed, " ")
	var labels []string
	for _, e := range New(console.NewTable(), Config{}).pages[PageMain].entries {
		labels = append(labels, e.label)
	}
	if want := strings.Join(labels, " , "); got != want {
		t.Errorf("README.md lists the main menu as %q, the menu has %q", got, want)
	}
}
