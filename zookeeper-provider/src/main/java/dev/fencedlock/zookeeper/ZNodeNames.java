package dev.fencedlock.zookeeper;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Maps a lock name to the single znode name that holds its lock nodes.
 *
 * <p>ZooKeeper paths forbid much of what lock names allow: {@code /} would nest one lock inside
 * another, {@code .} and {@code ..} are not valid path elements, and control characters, most
 * non-BMP code points (surrogates) and private-use characters are refused by the server. So the
 * name is percent-encoded over its UTF-8 bytes: ASCII letters, digits and {@code - _ . : ~ @ + = ,}
 * stay as they are, every other byte (including {@code %} itself) becomes {@code %XX}, and a name
 * that would encode to {@code .} or {@code ..} has its dots encoded too. The mapping is
 * injective, so two different lock names never share a znode, and the result is always a single
 * valid path element. A 256-character name encodes to at most 2,304 characters, well within what
 * ZooKeeper accepts.
 *
 * <p>Thread-safe (stateless).
 */
final class ZNodeNames {
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();
    private static final String KEPT_PUNCTUATION = "-_.:~@+=,";

    private ZNodeNames() {}

    /**
     * Encodes a lock name that has already passed {@link dev.fencedlock.LockNames#requireValid}.
     *
     * @throws IllegalArgumentException if the name holds an unpaired UTF-16 surrogate, which has no
     *     UTF-8 form and so could not be told apart from other such names
     */
    static String encode(String lockName) {
        byte[] utf8 = utf8(lockName);
        StringBuilder out = new StringBuilder(utf8.length + 8);
        for (byte b : utf8) {
            int c = b & 0xFF;
            if (kept(c)) {
                out.append((char) c);
            } else {
                out.append('%').append(HEX[c >>> 4]).append(HEX[c & 0x0F]);
            }
        }
        String encoded = out.toString();
        if (encoded.equals(".") || encoded.equals("..")) {
            return encoded.replace(".", "%2E");
        }
        return encoded;
    }

    private static boolean kept(int c) {
        return (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9')
                || KEPT_PUNCTUATION.indexOf(c) >= 0;
    }

    private static byte[] utf8(String lockName) {
        try {
            ByteBuffer bytes = StandardCharsets.UTF_8
                    .newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(lockName));
            byte[] result = new byte[bytes.remaining()];
            bytes.get(result);
            return result;
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(
                    "lock name must be valid Unicode, got an unpaired surrogate in '"
                            + lockName.replaceAll("[\\uD800-\\uDFFF]", "?") + "'",
                    e);
        }
    }
}
