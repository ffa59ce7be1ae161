package e2e

import (
	"fmt"
	"testing"

	"github.com/kalends/kalends/internal/browsertest"
)

// The rich-text editor's screenshot (issue 32 item 8): an event whose
// description is written in Japanese, open in the visual editor with the
// cursor in its heading.

// editorEvent is that event, created by seedEditorEvent.
var editorEvent int64

func seedEditorEvent(t *testing.T, srv *browsertest.Server, a browsertest.Account) {
	t.Helper()
	editorEvent = srv.CreateEvent(t, a, map[string]any{"title": "港のジャズナイト", "status": "draft",
		"description": `<h2>三つのバンドが桟橋に</h2><p>横浜港の大さん橋で、<strong>夜 7 時</strong>から三つのバンドが演奏します。` +
			`<a href="https://example.com/tickets">チケットのご案内</a>をご覧ください。</p>` +
			`<ul><li>第一部：トリオ「潮風」</li><li>第二部：港町ビッグバンド</li><li>アンコール：全員でセッション</li></ul>` +
			`<blockquote><p>「音楽は港から始まる」</p></blockquote><p>夜の海風は冷えますので、上着をお持ちください。</p>`,
		"excerpt": "桟橋で三つのバンドが演奏する、港の夏の夜。"})
}

func init() {
	signedIn = append(signedIn, shot{"event-editor", 200, func(p *browsertest.Page, lang string) int {
		st := p.VisitIn(lang, fmt.Sprintf("/admin/events/%d/edit", editorEvent))
		p.WaitVisible(descBox)
		p.Click(descBox + ` h2`) // the heading button shows pressed
		return st
	}})
}
