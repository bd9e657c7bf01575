package dev.fencedlock.spring.internal;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.spring.FencedWriteRefusedException;

/**
 * A {@code @FencedBy} call refused for its presented token: stale, missing or not trusted. Only its
 * type tells it from a {@code @Locked} call's refusal, so that {@link ReceiverProblems} answers
 * receivers' refusals alone with HTTP statuses.
 */
final class PresentedTokenRefusedException extends FencedWriteRefusedException {
    private static final long serialVersionUID = 1L;

    /** A refusal before the method ran: the token was missing or not trusted. */
    PresentedTokenRefusedException(FenceRefusedException refusal) {
        super(refusal);
    }

    /** {@code refused}, raised while the method ran, as a receiver's refusal: its message, cause and suppressed failures kept. */
    PresentedTokenRefusedException(FencedWriteRefusedException refused) {
        super(refused.getMessage(), refused.refusal());
        for (Throwable suppressed : refused.getSuppressed()) {
            addSuppressed(suppressed);
        }
        setStackTrace(refused.getStackTrace());
    }
}
