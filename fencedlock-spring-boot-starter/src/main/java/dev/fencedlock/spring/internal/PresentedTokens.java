package dev.fencedlock.spring.internal;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.FenceRefusedException.Reason;
import dev.fencedlock.FencingHeader;
import dev.fencedlock.FencingTokenCheck;
import dev.fencedlock.LockNames;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Turns the token the current thread's request (or message) presents for a lock into the {@link
 * PresentedLease} a {@code @FencedBy} call runs under, once it passed the receiver's checks.
 * Thread-safe.
 */
final class PresentedTokens {
    private final FencingTokenCheck check;
    private final Duration bound;
    private final List<PresentedHeaders> sources;

    /** @param sources asked in order; the first that knows the thread's request or message counts */
    PresentedTokens(FencingTokenCheck check, Duration bound, List<PresentedHeaders> sources) {
        this.check = check;
        this.bound = bound;
        this.sources = List.copyOf(sources);
    }

    /**
     * The lease of the token presented for {@code lockName} to {@code what}.
     *
     * @throws FenceRefusedException {@link Reason#TOKEN_NOT_PRESENTED} when the thread serves no
     *     request or message, or it carries no token for the lock; {@link Reason#TOKEN_NOT_TRUSTED}
     *     as {@link FencingTokenCheck#tokenFor} says
     * @throws MalformedTokenHeaderException if the presented value is malformed
     * @throws IllegalArgumentException if {@code lockName} breaks the lock-name rules (the method's
     *     expression, not the request, is wrong)
     */
    PresentedLease present(String lockName, String what) {
        LockNames.requireValid(lockName);
        Optional<PresentedHeaders.Presented> presented = current();
        if (presented.isEmpty()) {
            throw new FenceRefusedException(
                    Reason.TOKEN_NOT_PRESENTED,
                    lockName,
                    FenceRefusedException.NO_TOKEN,
                    null,
                    what + " serves no HTTP request or message here, so nothing presents a token",
                    null);
        }
        long token;
        try {
            token = check.tokenFor(lockName, presented.get().value());
        } catch (IllegalArgumentException malformed) {
            throw new MalformedTokenHeaderException(
                    "the " + FencingHeader.NAME + " header of the "
                            + presented.get().origin() + " to " + what + " is malformed: " + malformed.getMessage(),
                    lockName,
                    malformed);
        }
        return new PresentedLease(lockName, token, bound);
    }

    private Optional<PresentedHeaders.Presented> current() {
        for (PresentedHeaders source : sources) {
            Optional<PresentedHeaders.Presented> presented = source.current();
            if (presented.isPresent()) {
                return presented;
            }
        }
        return Optional.empty();
    }
}
