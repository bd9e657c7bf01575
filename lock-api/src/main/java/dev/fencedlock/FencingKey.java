package dev.fencedlock;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A key shared by the senders and receivers of {@link FencingHeader} values, for receivers that
 * cannot trust every caller: a sender signs each lock's token with it (HMAC-SHA256 over the lock
 * name and the token), a receiver that knows the key by its id checks the signature. The id travels
 * with the signature, so a receiver can accept an old and a new key while senders move to the new
 * one.
 *
 * <p>The secret is never printed: {@link #toString()} shows the id only. Immutable and
 * thread-safe.
 */
public final class FencingKey {
    private static final String ALGORITHM = "HmacSHA256";
    /** The shortest secret accepted: the length of the hash, as RFC 2104 advises. */
    public static final int MIN_SECRET_BYTES = 32;

    private final String id;
    private final byte[] secret;

    private FencingKey(String id, byte[] secret) {
        this.id = id;
        this.secret = secret;
    }

    /**
     * The key {@code id} with {@code secret}.
     *
     * @param id printable ASCII, 1 to 64 characters, as senders and receivers both name the key
     * @throws IllegalArgumentException if {@code id} is null, empty, longer than 64 characters or not
     *     printable ASCII, or {@code secret} is null or shorter than {@value #MIN_SECRET_BYTES} bytes
     */
    public static FencingKey of(String id, byte[] secret) {
        if (id == null || id.isEmpty() || id.length() > 64 || !id.chars().allMatch(c -> c >= 0x20 && c <= 0x7e)) {
            throw new IllegalArgumentException(
                    "a fencing key id must be 1 to 64 printable ASCII characters, got " + quoted(id));
        }
        if (secret == null || secret.length < MIN_SECRET_BYTES) {
            throw new IllegalArgumentException("the secret of fencing key '" + id + "' must be at least "
                    + MIN_SECRET_BYTES + " bytes, got " + (secret == null ? "none" : secret.length + " bytes"));
        }
        return new FencingKey(id, secret.clone());
    }

    /**
     * The key {@code id} with a secret written in base64, as configuration holds it.
     *
     * @throws IllegalArgumentException as {@link #of(String, byte[])}, or if {@code base64Secret}
     *     is not base64 (the message names the key, never the secret)
     */
    public static FencingKey ofBase64(String id, String base64Secret) {
        byte[] secret;
        try {
            secret = Base64.getDecoder()
                    .decode(Objects.requireNonNull(base64Secret, "secret").strip());
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException("the secret of fencing key " + quoted(id) + " is not base64");
        }
        return of(id, secret);
    }

    /** The key's id, as it travels in a signed value's {@code kid} parameter. */
    public String id() {
        return id;
    }

    /** The signature of {@code token} for {@code lockName}. */
    byte[] sign(String lockName, long token) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(secret, ALGORITHM));
            mac.update(lockName.getBytes(StandardCharsets.UTF_8));
            mac.update((byte) '\n');
            return mac.doFinal(Long.toString(token).getBytes(StandardCharsets.US_ASCII));
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException(ALGORITHM + " is not available in this JVM", e);
        }
    }

    /** Whether {@code signature} is this key's signature of {@code token} for {@code lockName}. */
    boolean verifies(String lockName, long token, byte[] signature) {
        return MessageDigest.isEqual(sign(lockName, token), signature);
    }

    private static String quoted(String id) {
        return id == null ? "null" : "'" + id.replaceAll("\\p{Cntrl}", "?") + "'";
    }

    @Override
    public String toString() {
        return "FencingKey[" + id + "]";
    }
}
