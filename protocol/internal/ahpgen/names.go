package main

import (
	"bytes"
	"fmt"
	"go/scanner"
	"go/token"
	"strings"
	"unicode"
)

// initialisms is the Go lint list (golang/lint's commonInitialisms): a word
// of an identifier that spells one of these is written in one case, so a
// schema's `clientId` becomes ClientID and `uri` becomes URI. MCP and AHP
// are not on it; McpServerState keeps the name the spec's readers know.
var initialisms = map[string]bool{
	"ACL": true, "API": true, "ASCII": true, "CPU": true, "CSS": true, "DNS": true,
	"EOF": true, "GUID": true, "HTML": true, "HTTP": true, "HTTPS": true, "ID": true,
	"IP": true, "JSON": true, "LHS": true, "QPS": true, "RAM": true, "RHS": true,
	"RPC": true, "SLA": true, "SMTP": true, "SQL": true, "SSH": true, "TCP": true,
	"TLS": true, "TTL": true, "UDP": true, "UI": true, "UID": true, "UUID": true,
	"URI": true, "URL": true, "UTF8": true, "VM": true, "XML": true, "XMPP": true,
	"XSRF": true, "XSS": true,
}

// goName applies the initialisms to one identifier, word by word (a word
// ends before an upper-case letter that follows a lower-case one, or at an
// underscore). A plural initialism keeps its s lower-case (AnnotationIDs →
// AnnotationIDs). A leading lower-case word stays lower-case (jsonString).
// It is idempotent, so names already in Go style pass through unchanged.
func goName(name string) string {
	runes := []rune(name)
	w := 0
	for i := 0; i < len(runes); i++ {
		eow := i+1 == len(runes) || runes[i+1] == '_' ||
			(unicode.IsLower(runes[i]) && !unicode.IsLower(runes[i+1]))
		if !eow {
			continue
		}
		word := string(runes[w : i+1])
		lowerStart := w == 0 && unicode.IsLower(runes[w])
		u := strings.ToUpper(word)
		switch {
		case initialisms[u]:
			if lowerStart {
				u = strings.ToLower(u)
			}
			copy(runes[w:], []rune(u))
		case len(word) > 2 && word[len(word)-1] == 's' && initialisms[u[:len(u)-1]] && !lowerStart:
			copy(runes[w:], []rune(u[:len(u)-1]))
		}
		w = i + 1
		if w < len(runes) && runes[w] == '_' {
			w++
			i++
		}
	}
	return string(runes)
}

// goNames rewrites every identifier of a Go source through goName. It works
// on tokens, so string literals (the JSON names) and comments stay as the
// schema spells them.
func goNames(src []byte) ([]byte, error) {
	fs := token.NewFileSet()
	f := fs.AddFile("types_gen.go", -1, len(src))
	var s scanner.Scanner
	var firstErr error
	s.Init(f, src, func(pos token.Position, msg string) {
		if firstErr == nil {
			firstErr = fmt.Errorf("%s: %s", pos, msg)
		}
	}, 0)
	var out bytes.Buffer
	last := 0
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok != token.IDENT {
			continue
		}
		if n := goName(lit); n != lit {
			off := f.Offset(pos)
			out.Write(src[last:off])
			out.WriteString(n)
			last = off + len(lit)
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	out.Write(src[last:])
	return out.Bytes(), nil
}
