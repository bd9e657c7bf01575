package dev.fencedlock.spring.internal;

import dev.fencedlock.jdbc.FenceRowBusyException;
import org.springframework.dao.CannotAcquireLockException;

/**
 * A {@code @FencedBy} call's transaction waited for the lock's fence row, held by an older
 * transaction, for the receiver's whole bound: answered with HTTP 503 and {@code Retry-After}
 * ({@link ReceiverProblems}). Still a {@link CannotAcquireLockException}, as for a {@code @Locked}
 * call, so retry policies keyed on it go on working.
 */
final class PresentedRowBusyException extends CannotAcquireLockException {
    private static final long serialVersionUID = 1L;

    private final transient FenceRowBusyException busy;

    /** @param failure what the call failed with, whose causes include {@code busy} */
    PresentedRowBusyException(FenceRowBusyException busy, Throwable failure) {
        super(busy.getMessage(), failure);
        this.busy = busy;
    }

    FenceRowBusyException busy() {
        return busy;
    }
}
