package dev.fencedlock.jdbcprovider.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;

/** The lock table's row key for a name, and the random values that identify one grant. Thread-safe. */
final class LockKeys {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final HexFormat HEX = HexFormat.of();

    private LockKeys() {}

    /**
     * The row key of {@code lockName}: the lower-case hex SHA-256 of its UTF-8 bytes. 64 ASCII
     * characters compare alike under every collation, so two names never share a row however the
     * database folds case or pads.
     */
    static String rowKey(String lockName) {
        try {
            return HEX.formatHex(
                    MessageDigest.getInstance("SHA-256").digest(lockName.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /** A new grant's holder value: 128 bits from a CSPRNG, as 32 hex digits. */
    static String newHolder() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return HEX.formatHex(bytes);
    }
}
