package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// maxDepth bounds parenthesis and unary-minus nesting, so a hostile
// expression cannot exhaust the guest's stack.
const maxDepth = 64

// Eval evaluates an arithmetic expression: + - * /, parentheses, decimal
// numbers and unary minus (or plus), with the usual precedence, left to right.
//
// Grammar, one method per rule:
//
//	expr   = term { ("+" | "-") term }
//	term   = unary { ("*" | "/") unary }
//	unary  = ("-" | "+") unary | primary
//	primary = number | "(" expr ")"
//	number = digits [ "." digits ] | "." digits
func Eval(s string) (float64, error) {
	p := &parser{src: s}
	p.skipSpace()
	if p.pos == len(p.src) {
		return 0, errors.New("expression is empty")
	}
	v, err := p.expr()
	if err != nil {
		return 0, err
	}
	if p.pos < len(p.src) {
		return 0, p.unexpected()
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, errors.New("result is out of range")
	}
	return v, nil
}

// Format renders v with up to 15 significant digits, so 0.1+0.2 reads 0.3.
func Format(v float64) string {
	if v == 0 {
		v = 0 // no "-0"
	}
	return strconv.FormatFloat(v, 'g', 15, 64)
}

type parser struct {
	src   string
	pos   int // byte offset of the next unread character
	depth int
}

func (p *parser) expr() (float64, error) {
	v, err := p.term()
	for err == nil && p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
		op := p.src[p.pos]
		p.advance()
		var r float64
		if r, err = p.term(); err == nil {
			if op == '+' {
				v += r
			} else {
				v -= r
			}
		}
	}
	return v, err
}

func (p *parser) term() (float64, error) {
	v, err := p.unary()
	for err == nil && p.pos < len(p.src) && (p.src[p.pos] == '*' || p.src[p.pos] == '/') {
		op, at := p.src[p.pos], p.pos
		p.advance()
		var r float64
		if r, err = p.unary(); err == nil {
			if op == '*' {
				v *= r
			} else if r == 0 {
				err = fmt.Errorf("division by zero at position %d", at+1)
			} else {
				v /= r
			}
		}
	}
	return v, err
}

func (p *parser) unary() (float64, error) {
	if p.pos < len(p.src) && (p.src[p.pos] == '-' || p.src[p.pos] == '+') {
		neg := p.src[p.pos] == '-'
		if err := p.enter(); err != nil {
			return 0, err
		}
		defer p.leave()
		p.advance()
		v, err := p.unary()
		if neg {
			v = -v
		}
		return v, err
	}
	return p.primary()
}

func (p *parser) primary() (float64, error) {
	if p.pos == len(p.src) {
		return 0, errors.New("unexpected end of expression, expected a number or '('")
	}
	if p.src[p.pos] == '(' {
		if err := p.enter(); err != nil {
			return 0, err
		}
		defer p.leave()
		open := p.pos
		p.advance()
		v, err := p.expr()
		if err != nil {
			return 0, err
		}
		if p.pos == len(p.src) || p.src[p.pos] != ')' {
			if p.pos == len(p.src) {
				return 0, fmt.Errorf("missing ')' for the '(' at position %d", open+1)
			}
			return 0, p.unexpected()
		}
		p.advance()
		return v, nil
	}
	return p.number()
}

func (p *parser) number() (float64, error) {
	start := p.pos
	digits := p.digits()
	if p.pos < len(p.src) && p.src[p.pos] == '.' {
		p.pos++
		if p.digits() == 0 {
			return 0, fmt.Errorf("expected a digit after '.' at position %d", p.pos)
		}
		digits++
	}
	if digits == 0 {
		return 0, p.unexpected()
	}
	v, err := strconv.ParseFloat(p.src[start:p.pos], 64)
	if err != nil {
		return 0, fmt.Errorf("number %q at position %d is out of range", p.src[start:p.pos], start+1)
	}
	p.skipSpace()
	return v, nil
}

// digits consumes a run of ASCII digits and returns its length.
func (p *parser) digits() int {
	start := p.pos
	for p.pos < len(p.src) && '0' <= p.src[p.pos] && p.src[p.pos] <= '9' {
		p.pos++
	}
	return p.pos - start
}

// advance consumes one operator or parenthesis and the spaces after it.
func (p *parser) advance() {
	p.pos++
	p.skipSpace()
}

func (p *parser) skipSpace() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t' || p.src[p.pos] == '\n' || p.src[p.pos] == '\r') {
		p.pos++
	}
}

func (p *parser) enter() error {
	if p.depth++; p.depth > maxDepth {
		return fmt.Errorf("expression nests deeper than %d levels", maxDepth)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// unexpected reports the character at the current position (1-based).
func (p *parser) unexpected() error {
	if p.pos == len(p.src) {
		return errors.New("unexpected end of expression")
	}
	r, _ := utf8.DecodeRuneInString(p.src[p.pos:])
	return fmt.Errorf("unexpected %q at position %d", r, p.pos+1)
}
