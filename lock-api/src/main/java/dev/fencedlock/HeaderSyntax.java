package dev.fencedlock;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads and writes the {@code Fencing-Token} field value: a structured-field list (RFC 9651) of
 * lock names, each with a {@code token} parameter and, when signed, {@code kid} and {@code sig}
 * parameters. The grammar is written out in {@code docs/fencing-calls.md}; this class is its only
 * implementation in Java. Stateless and thread-safe.
 */
final class HeaderSyntax {
    /** The longest field value read or written, in characters. */
    static final int MAX_LENGTH = 8192;
    /** The most locks one field value may carry. */
    static final int MAX_LOCKS = 64;

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private HeaderSyntax() {}

    /** One member of the list: a lock, its token and, when signed, the key id and signature. */
    record Entry(String lockName, long token, String keyId, byte[] signature) {
        boolean signed() {
            return signature != null;
        }
    }

    static String write(List<Entry> entries) {
        if (entries.isEmpty()) {
            throw new IllegalArgumentException("a Fencing-Token value needs at least one lock, got none");
        }
        if (entries.size() > MAX_LOCKS) {
            throw new IllegalArgumentException(
                    "a Fencing-Token value carries at most " + MAX_LOCKS + " locks, got " + entries.size());
        }
        StringBuilder out = new StringBuilder();
        for (Entry entry : entries) {
            if (out.length() > 0) {
                out.append(", ");
            }
            writeName(out, entry.lockName());
            out.append(";token=\"").append(entry.token()).append('"');
            if (entry.signed()) {
                out.append(";kid=");
                writeString(out, entry.keyId());
                out.append(";sig=:")
                        .append(Base64.getEncoder().encodeToString(entry.signature()))
                        .append(':');
            }
        }
        if (out.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("the Fencing-Token value would be " + out.length()
                    + " characters long, more than the " + MAX_LENGTH + " a receiver reads");
        }
        return out.toString();
    }

    /** A lock name as a string where it is printable ASCII, else as a display string. */
    private static void writeName(StringBuilder out, String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                writeDisplayString(out, name);
                return;
            }
        }
        writeString(out, name);
    }

    private static void writeString(StringBuilder out, String value) {
        out.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\');
            }
            out.append(c);
        }
        out.append('"');
    }

    private static void writeDisplayString(StringBuilder out, String value) {
        out.append("%\"");
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c == '%' || c == '"' || c < 0x20 || c > 0x7e) {
                out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
            } else {
                out.append((char) c);
            }
        }
        out.append('"');
    }

    /**
     * The entries of {@code value}, in order; empty for a blank value.
     *
     * @throws IllegalArgumentException naming what is wrong, for a value that breaks the grammar,
     *     is longer than {@link #MAX_LENGTH} characters, carries more than {@link #MAX_LOCKS} locks,
     *     names a lock twice or carries a lock name the lock-name rules refuse
     */
    static List<Entry> read(String value) {
        if (value == null) {
            throw new IllegalArgumentException("Fencing-Token value must not be null");
        }
        if (value.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("Fencing-Token value is " + value.length()
                    + " characters long, more than the " + MAX_LENGTH + " accepted");
        }
        return new Reader(value).list();
    }

    /** A recursive-descent reader of one field value. Not thread-safe: one per value. */
    private static final class Reader {
        private final String text;
        private int at;

        Reader(String text) {
            this.text = text;
        }

        List<Entry> list() {
            List<Entry> entries = new ArrayList<>();
            Map<String, Boolean> names = new LinkedHashMap<>();
            skipSpaces();
            if (at == text.length()) {
                return entries;
            }
            while (true) {
                Entry entry = member();
                if (names.put(entry.lockName(), Boolean.TRUE) != null) {
                    throw malformed("lock '" + entry.lockName() + "' appears twice");
                }
                entries.add(entry);
                if (entries.size() > MAX_LOCKS) {
                    throw malformed("more than " + MAX_LOCKS + " locks");
                }
                skipOptionalWhitespace();
                if (at == text.length()) {
                    return entries;
                }
                expect(',', "',' between locks");
                skipOptionalWhitespace();
                if (at == text.length()) {
                    throw malformed("a trailing ','");
                }
            }
        }

        private Entry member() {
            int start = at;
            String lockName = bareItemName();
            try {
                LockNames.requireValid(lockName);
            } catch (IllegalArgumentException refused) {
                throw malformed("the lock name at " + start + " breaks the lock-name rules: " + refused.getMessage());
            }
            Long token = null;
            String keyId = null;
            byte[] signature = null;
            while (at < text.length() && text.charAt(at) == ';') {
                at++;
                skipSpaces();
                String key = key();
                if (at < text.length() && text.charAt(at) == '=') {
                    at++;
                } else {
                    throw malformed("parameter '" + key + "' of lock '" + lockName + "' has no value");
                }
                switch (key) {
                    case "token" -> token = token(lockName);
                    case "kid" -> keyId = string();
                    case "sig" -> signature = byteSequence(lockName);
                    default -> skipBareItem(key);
                }
            }
            if (token == null) {
                throw malformed("lock '" + lockName + "' has no token parameter");
            }
            if ((keyId == null) != (signature == null)) {
                throw malformed(
                        "lock '" + lockName + "' has " + (keyId == null ? "a sig but no kid" : "a kid but no sig"));
            }
            return new Entry(lockName, token, keyId, signature);
        }

        private String bareItemName() {
            if (at < text.length() && text.charAt(at) == '"') {
                return string();
            }
            if (text.startsWith("%\"", at)) {
                return displayString();
            }
            throw malformed("expected a lock name as a quoted string (\"...\") or a display string (%\"...\")");
        }

        private String key() {
            int start = at;
            if (at < text.length() && (isLowerAlpha(text.charAt(at)) || text.charAt(at) == '*')) {
                at++;
                while (at < text.length()) {
                    char c = text.charAt(at);
                    if (isLowerAlpha(c) || isDigit(c) || c == '_' || c == '-' || c == '.' || c == '*') {
                        at++;
                    } else {
                        break;
                    }
                }
                return text.substring(start, at);
            }
            throw malformed("expected a parameter name (lower-case letters)");
        }

        private long token(String lockName) {
            int start = at;
            String digits = string();
            if (digits.startsWith("-") && digits.length() > 1 && allDigits(digits.substring(1))) {
                throw malformed("the token of lock '" + lockName + "' is negative (" + digits + ")", start);
            }
            if (digits.isEmpty() || digits.length() > 19 || !allDigits(digits)) {
                throw malformed(
                        "the token of lock '" + lockName + "' is not a number from 0 to " + Long.MAX_VALUE + " (got \""
                                + digits + "\")",
                        start);
            }
            try {
                return Long.parseLong(digits);
            } catch (NumberFormatException tooLarge) {
                throw malformed("the token of lock '" + lockName + "' is larger than " + Long.MAX_VALUE, start);
            }
        }

        private String string() {
            expect('"', "'\"' opening a string");
            StringBuilder value = new StringBuilder();
            while (at < text.length()) {
                char c = text.charAt(at++);
                if (c == '\\') {
                    if (at == text.length()) {
                        break;
                    }
                    char escaped = text.charAt(at++);
                    if (escaped != '"' && escaped != '\\') {
                        throw malformed("only \\\" and \\\\ may be escaped in a string", at - 2);
                    }
                    value.append(escaped);
                } else if (c == '"') {
                    return value.toString();
                } else if (c < 0x20 || c > 0x7e) {
                    throw malformed("a string may hold only printable ASCII; use a display string (%\"...\")", at - 1);
                } else {
                    value.append(c);
                }
            }
            throw malformed("a string is not closed");
        }

        private String displayString() {
            at += 2;
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            while (at < text.length()) {
                char c = text.charAt(at++);
                if (c == '"') {
                    try {
                        return StandardCharsets.UTF_8
                                .newDecoder()
                                .onMalformedInput(CodingErrorAction.REPORT)
                                .onUnmappableCharacter(CodingErrorAction.REPORT)
                                .decode(ByteBuffer.wrap(bytes.toByteArray()))
                                .toString();
                    } catch (CharacterCodingException e) {
                        throw malformed("a display string is not valid UTF-8", at - 1);
                    }
                } else if (c == '%') {
                    if (at + 2 > text.length()) {
                        throw malformed("a '%' in a display string needs two hex digits", at - 1);
                    }
                    int high = Character.digit(text.charAt(at), 16);
                    int low = Character.digit(text.charAt(at + 1), 16);
                    if (high < 0 || low < 0) {
                        throw malformed("a '%' in a display string needs two hex digits", at - 1);
                    }
                    bytes.write(high << 4 | low);
                    at += 2;
                } else if (c < 0x20 || c > 0x7e) {
                    throw malformed("a display string holds only printable ASCII and %xx escapes", at - 1);
                } else {
                    bytes.write(c);
                }
            }
            throw malformed("a display string is not closed");
        }

        private byte[] byteSequence(String lockName) {
            expect(':', "':' opening the signature");
            int end = text.indexOf(':', at);
            if (end < 0) {
                throw malformed("the signature of lock '" + lockName + "' is not closed by ':'");
            }
            String encoded = text.substring(at, end);
            at = end + 1;
            try {
                return Base64.getDecoder().decode(encoded);
            } catch (IllegalArgumentException e) {
                throw malformed("the signature of lock '" + lockName + "' is not base64", end - encoded.length());
            }
        }

        /** Skips the value of a parameter this version does not know, so newer senders stay readable. */
        private void skipBareItem(String key) {
            if (at < text.length()) {
                char c = text.charAt(at);
                if (c == '"') {
                    string();
                    return;
                }
                if (text.startsWith("%\"", at)) {
                    displayString();
                    return;
                }
                if (c == ':') {
                    byteSequence(key);
                    return;
                }
            }
            int start = at;
            while (at < text.length() && ",; ".indexOf(text.charAt(at)) < 0) {
                at++;
            }
            if (start == at) {
                throw malformed("parameter '" + key + "' has an empty value");
            }
        }

        private void expect(char c, String what) {
            if (at < text.length() && text.charAt(at) == c) {
                at++;
                return;
            }
            throw malformed("expected " + what);
        }

        private void skipSpaces() {
            while (at < text.length() && text.charAt(at) == ' ') {
                at++;
            }
        }

        private void skipOptionalWhitespace() {
            while (at < text.length() && (text.charAt(at) == ' ' || text.charAt(at) == '\t')) {
                at++;
            }
        }

        private IllegalArgumentException malformed(String problem) {
            return malformed(problem, at);
        }

        private IllegalArgumentException malformed(String problem, int position) {
            return new IllegalArgumentException("malformed Fencing-Token value: " + problem + " (at character "
                    + position + " of " + text.length() + ")");
        }

        private static boolean isLowerAlpha(char c) {
            return c >= 'a' && c <= 'z';
        }

        private static boolean isDigit(char c) {
            return c >= '0' && c <= '9';
        }

        private static boolean allDigits(String s) {
            for (int i = 0; i < s.length(); i++) {
                if (!isDigit(s.charAt(i))) {
                    return false;
                }
            }
            return true;
        }
    }
}
