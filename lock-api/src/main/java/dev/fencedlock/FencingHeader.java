package dev.fencedlock;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@value #NAME} header: the fencing tokens of one or more locks, carried by an HTTP request or
 * a message so that the service or consumer it reaches can refuse a stale holder's effect with its
 * own fence (see {@link FencingTokenCheck}).
 *
 * <p>The value is a structured-field list (RFC 9651): one member per lock, the lock name as a
 * string ({@code "orders-42"}, with {@code \"} and {@code \\} escaped) or, when it holds anything but
 * printable ASCII, as a display string ({@code %"lager-k%c3%b6ln"}); its token as a string of decimal
 * digits in the {@code token} parameter, because structured-field integers stop at 15 digits and
 * tokens use all 63 bits; when signed, the key's id in {@code kid} and the HMAC-SHA256 of the lock
 * name, a line feed and the token's digits in {@code sig}, a byte sequence. Example:
 *
 * <pre>
 *   Fencing-Token: "orders-42";token="7523094288207360001", %"lager-k%c3%b6ln";token="7523094288207360512"
 *   Fencing-Token: "orders-42";token="7523094288207360001";kid="2026-11";sig=:4Y1c...Q=:
 * </pre>
 *
 * <p>A value carries at most {@value HeaderSyntax#MAX_LOCKS} locks and {@value
 * HeaderSyntax#MAX_LENGTH} characters; readers ignore parameters they do not know. The full
 * grammar, for services written in other languages, is in {@code docs/fencing-calls.md}.
 *
 * <p>Stateless and thread-safe.
 */
public final class FencingHeader {
    /** The header's name. */
    public static final String NAME = "Fencing-Token";

    /** The longest value, in characters, that {@link #decode} reads and {@link #encode} writes. */
    public static final int MAX_LENGTH = HeaderSyntax.MAX_LENGTH;

    /** The most locks one value carries. */
    public static final int MAX_LOCKS = HeaderSyntax.MAX_LOCKS;

    private FencingHeader() {}

    /**
     * The value carrying the tokens of {@code leases}, unsigned. Whether a lease is still valid is
     * the sender's to check: this only writes what it is given.
     *
     * @throws IllegalArgumentException if there is no lease, a lease is null, two leases are of the
     *     same lock, or there are more than {@value #MAX_LOCKS} or the value would exceed {@value
     *     #MAX_LENGTH} characters
     */
    public static String encode(Lease... leases) {
        return encode(tokensOf(leases));
    }

    /**
     * The value carrying {@code tokensByLockName}, unsigned, in the map's iteration order.
     *
     * @throws IllegalArgumentException if the map is null or empty, a lock name breaks the {@link
     *     LockNames} rules, a token is null or negative, or there are more than {@value #MAX_LOCKS}
     *     locks or the value would exceed {@value #MAX_LENGTH} characters
     */
    public static String encode(Map<String, Long> tokensByLockName) {
        return HeaderSyntax.write(entries(tokensByLockName, null));
    }

    /**
     * The value carrying the tokens of {@code leases}, each signed with {@code key}.
     *
     * @throws IllegalArgumentException as {@link #encode(Lease...)}, or if {@code key} is null
     */
    public static String encode(FencingKey key, Lease... leases) {
        return encode(key, tokensOf(leases));
    }

    /**
     * The value carrying {@code tokensByLockName}, each token signed with {@code key}.
     *
     * @throws IllegalArgumentException as {@link #encode(Map)}, or if {@code key} is null
     */
    public static String encode(FencingKey key, Map<String, Long> tokensByLockName) {
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        return HeaderSyntax.write(entries(tokensByLockName, key));
    }

    /**
     * The tokens a value carries, by lock name, in the value's order; empty for a blank value.
     * Signatures are read but not checked: a receiver checks them, and the token's time, with
     * {@link FencingTokenCheck}.
     *
     * @throws IllegalArgumentException naming the problem, if {@code value} is null, longer than
     *     {@value #MAX_LENGTH} characters, breaks the grammar, carries more than {@value #MAX_LOCKS}
     *     locks or one lock twice, a lock name the {@link LockNames} rules refuse, or a token that is
     *     not a number from 0 to {@link Long#MAX_VALUE}
     */
    public static Map<String, Long> decode(String value) {
        Map<String, Long> tokens = new LinkedHashMap<>();
        for (HeaderSyntax.Entry entry : HeaderSyntax.read(value)) {
            tokens.put(entry.lockName(), entry.token());
        }
        return Collections.unmodifiableMap(tokens);
    }

    private static Map<String, Long> tokensOf(Lease... leases) {
        if (leases == null || leases.length == 0) {
            throw new IllegalArgumentException("at least one lease is needed, got none");
        }
        Map<String, Long> tokens = new LinkedHashMap<>();
        for (Lease lease : leases) {
            if (lease == null) {
                throw new IllegalArgumentException("a lease must not be null");
            }
            if (tokens.put(lease.lockName(), lease.token()) != null) {
                throw new IllegalArgumentException(
                        "two leases of lock '" + lease.lockName() + "': a value carries one token per lock");
            }
        }
        return tokens;
    }

    private static List<HeaderSyntax.Entry> entries(Map<String, Long> tokensByLockName, FencingKey key) {
        if (tokensByLockName == null || tokensByLockName.isEmpty()) {
            throw new IllegalArgumentException("at least one lock's token is needed, got none");
        }
        List<HeaderSyntax.Entry> entries = new ArrayList<>(tokensByLockName.size());
        for (Map.Entry<String, Long> token : tokensByLockName.entrySet()) {
            String lockName = LockNames.requireValid(token.getKey());
            Long value = token.getValue();
            if (value == null || value < 0) {
                throw new IllegalArgumentException(
                        "the token of lock '" + lockName + "' must be a number from 0, got " + value);
            }
            entries.add(
                    key == null
                            ? new HeaderSyntax.Entry(lockName, value, null, null)
                            : new HeaderSyntax.Entry(lockName, value, key.id(), key.sign(lockName, value)));
        }
        return entries;
    }
}
