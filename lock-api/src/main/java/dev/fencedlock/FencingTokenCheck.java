package dev.fencedlock;

import dev.fencedlock.FenceRefusedException.Reason;
import dev.fencedlock.spi.TokenOrder;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a receiver checks before it fences a transaction with a presented token: that the request or
 * message carries a {@link FencingHeader} token for the lock, that the token could have been
 * granted, and, where configured, that it is signed with a known {@link FencingKey}.
 *
 * <p>A presented token is a claim. The receiver's fence row takes the largest token it has seen,
 * so a forged token far above every granted one would refuse every real holder from then on. Two
 * bounds stop that:
 *
 * <ul>
 *   <li><b>Time.</b> Every backend issues a token at least its grant time shifted left 16 bits
 *       ({@link dev.fencedlock.spi.TokenOrder}), and a grant happens before the call that carries
 *       it. A token whose time part lies more than {@link Builder#maxAhead} ahead of this receiver's
 *       clock was never granted and is refused, so a forged token can refuse real holders for at
 *       most that long. This rests on clocks: a granting clock that runs ahead of the receiver's by
 *       more than {@code maxAhead} has its real tokens refused too (refused calls, never a stale
 *       write accepted).
 *   <li><b>Signatures</b>, for receivers that cannot trust every caller: with {@link
 *       Builder#requireSignature()}, only tokens signed with one of the accepted keys pass. A
 *       signed token can be replayed, but a replayed token is one that was granted: the fence
 *       treats it as that holder's call.
 * </ul>
 *
 * <p>Immutable and thread-safe.
 */
public final class FencingTokenCheck {
    /** The default {@link Builder#maxAhead}: 10 seconds. */
    public static final Duration DEFAULT_MAX_AHEAD = Duration.ofSeconds(10);

    private final Duration maxAhead;
    private final Map<String, FencingKey> keys;
    private final boolean signatureRequired;
    private final Clock clock;

    private FencingTokenCheck(Builder builder) {
        this.maxAhead = builder.maxAhead;
        this.keys = Map.copyOf(builder.keys);
        this.signatureRequired = builder.signatureRequired;
        this.clock = builder.clock;
    }

    /** A check with the defaults: unsigned tokens accepted, at most 10 s ahead of the system clock. */
    public static FencingTokenCheck defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The token {@code headerValue} presents for {@code lockName}, once it passed every check.
     *
     * @param headerValue the {@value FencingHeader#NAME} value as received; null when the header
     *     was absent. Several header lines are joined with {@code ", "} first.
     * @throws IllegalArgumentException if {@code headerValue} is malformed ({@link
     *     FencingHeader#decode}), or {@code lockName} breaks the lock-name rules
     * @throws FenceRefusedException {@link Reason#TOKEN_NOT_PRESENTED} if there is no token for
     *     {@code lockName}; {@link Reason#TOKEN_NOT_TRUSTED} if its time part is ahead of this
     *     receiver's clock by more than {@code maxAhead}, or its signature is missing where required,
     *     made with a key this check does not know, or wrong
     */
    public long tokenFor(String lockName, String headerValue) {
        LockNames.requireValid(lockName);
        HeaderSyntax.Entry entry = null;
        if (headerValue != null) {
            for (HeaderSyntax.Entry candidate : HeaderSyntax.read(headerValue)) {
                if (candidate.lockName().equals(lockName)) {
                    entry = candidate;
                }
            }
        }
        if (entry == null) {
            throw new FenceRefusedException(
                    Reason.TOKEN_NOT_PRESENTED,
                    lockName,
                    FenceRefusedException.NO_TOKEN,
                    null,
                    headerValue == null ? "no " + FencingHeader.NAME + " header" : "the header names other locks only",
                    null);
        }
        checkSignature(entry);
        checkTime(entry);
        return entry.token();
    }

    /**
     * Every token {@code headerValue} presents, each checked as {@link #tokenFor} checks it; empty
     * for a null or blank value.
     *
     * @throws IllegalArgumentException if {@code headerValue} is malformed
     * @throws FenceRefusedException {@link Reason#TOKEN_NOT_TRUSTED} for the first token that fails
     */
    public Map<String, Long> tokens(String headerValue) {
        Map<String, Long> tokens = new LinkedHashMap<>();
        if (headerValue != null) {
            for (HeaderSyntax.Entry entry : HeaderSyntax.read(headerValue)) {
                checkSignature(entry);
                checkTime(entry);
                tokens.put(entry.lockName(), entry.token());
            }
        }
        return tokens;
    }

    private void checkSignature(HeaderSyntax.Entry entry) {
        if (!entry.signed()) {
            if (signatureRequired) {
                throw notTrusted(entry, "it is not signed, and this receiver requires a signature");
            }
            return;
        }
        if (keys.isEmpty() && !signatureRequired) {
            return;
        }
        FencingKey key = keys.get(entry.keyId());
        if (key == null) {
            throw notTrusted(entry, "it is signed with key '" + entry.keyId() + "', which this receiver does not know");
        }
        if (!key.verifies(entry.lockName(), entry.token(), entry.signature())) {
            throw notTrusted(entry, "its signature with key '" + entry.keyId() + "' is wrong");
        }
    }

    private void checkTime(HeaderSyntax.Entry entry) {
        long tokenMillis = entry.token() >>> TokenOrder.SEQUENCE_BITS;
        long now = clock.millis();
        long ahead = tokenMillis - now;
        if (ahead > maxAhead.toMillis()) {
            throw notTrusted(
                    entry,
                    "its time part lies " + Duration.ofMillis(ahead)
                            + " ahead of this receiver's clock, more than the " + maxAhead
                            + " allowed, so no backend granted it yet");
        }
    }

    private static FenceRefusedException notTrusted(HeaderSyntax.Entry entry, String why) {
        return new FenceRefusedException(Reason.TOKEN_NOT_TRUSTED, entry.lockName(), entry.token(), null, why, null);
    }

    /** Builds a {@link FencingTokenCheck}. Not thread-safe. */
    public static final class Builder {
        private Duration maxAhead = DEFAULT_MAX_AHEAD;
        private final Map<String, FencingKey> keys = new LinkedHashMap<>();
        private boolean signatureRequired;
        private Clock clock = Clock.systemUTC();

        private Builder() {}

        /**
         * How far a token's time part may lie ahead of this receiver's clock: at least the clock
         * skew between the granting sides and this receiver. Default {@link #DEFAULT_MAX_AHEAD}.
         *
         * @throws IllegalArgumentException if null or negative
         */
        public Builder maxAhead(Duration maxAhead) {
            if (maxAhead == null || maxAhead.isNegative()) {
                throw new IllegalArgumentException("maxAhead must be zero or positive, got " + maxAhead);
            }
            this.maxAhead = maxAhead;
            return this;
        }

        /**
         * Keys whose signatures are accepted, by id (an old and a new one during a rotation). A
         * signed token is checked against them even when signatures are not required.
         *
         * @throws IllegalArgumentException if a key is null or two keys share an id
         */
        public Builder acceptKeys(Collection<FencingKey> accepted) {
            if (accepted == null) {
                throw new IllegalArgumentException("keys must not be null");
            }
            for (FencingKey key : accepted) {
                if (key == null) {
                    throw new IllegalArgumentException("a key must not be null");
                }
                if (keys.putIfAbsent(key.id(), key) != null) {
                    throw new IllegalArgumentException("two fencing keys have the id '" + key.id() + "'");
                }
            }
            return this;
        }

        /** Varargs form of {@link #acceptKeys(Collection)}. */
        public Builder acceptKeys(FencingKey... accepted) {
            return acceptKeys(accepted == null ? null : Arrays.asList(accepted));
        }

        /** Refuse tokens not signed with an accepted key. Needs at least one key at {@link #build}. */
        public Builder requireSignature() {
            this.signatureRequired = true;
            return this;
        }

        /** The clock the time bound reads; the system clock unless a test sets one. */
        public Builder clock(Clock clock) {
            if (clock == null) {
                throw new IllegalArgumentException("clock must not be null");
            }
            this.clock = clock;
            return this;
        }

        /**
         * @throws IllegalArgumentException if signatures are required but no key is accepted
         */
        public FencingTokenCheck build() {
            if (signatureRequired && keys.isEmpty()) {
                throw new IllegalArgumentException("signatures are required but no fencing key is accepted");
            }
            return new FencingTokenCheck(this);
        }
    }
}
