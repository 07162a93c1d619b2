package guard

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// foreignPasswordNames are "password" in the languages of the notes
// measured (see the README), as a label before ":" or "=": Passwort:,
// mot de passe :, contraseña:, пароль:, 密码：. Single ASCII words are in
// secretNouns and exactNouns; these are the phrases and the other
// scripts. They are compared in security text (NFKD, marks gone), so
// each is stored in that form.
var foreignPasswordNames = []string{
	"mot de passe", "mot-de-passe", "parola d'ordine", "mat khau", "kata sandi", "kata laluan", "hasło",
	"пароль", "парола", "лозинка", "гасло", "κωδικός", "συνθηματικό", "密码", "密碼", "口令", "パスワード",
	"暗証番号", "비밀번호", "암호", "패스워드", "كلمة المرور", "كلمة السر", "סיסמה", "סיסמא", "رمز عبور",
	"گذرواژه", "पासवर्ड", "รหัสผ่าน", "கடவுச்சொல்", "পাসওয়ার্ড", "पासवर्ड",
}

// foreignByLast indexes the names' security-text forms, in lower, upper
// and title case, by their last byte.
var foreignByLast = func() map[byte][]string {
	m := map[byte][]string{}
	for _, n := range foreignPasswordNames {
		t := securityText(n)
		for _, v := range []string{strings.ToLower(t), strings.ToUpper(t), strings.ToUpper(t[:1]) + t[1:]} {
			k := v[len(v)-1]
			m[k] = append(m[k], v)
		}
	}
	return m
}()

// foreignName reports that t[:end] ends with one of the names, as a word.
func foreignName(t string, end int) bool {
	if end == 0 {
		return false
	}
	for _, n := range foreignByLast[t[end-1]] {
		if start := end - len(n); start >= 0 && strings.EqualFold(t[start:end], n) && wordStart(t, start) {
			return true
		}
	}
	return false
}

// wordStart reports that no letter or digit stands right before t[i].
func wordStart(t string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(t[:i])
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}
