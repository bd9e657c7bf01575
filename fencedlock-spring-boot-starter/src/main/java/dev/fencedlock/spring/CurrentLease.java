package dev.fencedlock.spring;

import dev.fencedlock.Lease;
import dev.fencedlock.spring.internal.CurrentLeaseBinder;
import java.util.Objects;
import java.util.Optional;

/**
 * The lease of the {@link Locked} call or {@link FencedTransactions} run on the current thread, or
 * the token a {@link FencedBy} call's request presented (a lease whose {@link Lease#backend()} is
 * {@code "presented"}).
 */
public final class CurrentLease {
    private CurrentLease() {}

    /**
     * The innermost lease a locked call runs under on this thread, for example to record its
     * {@link Lease#token() token}; empty outside any locked call.
     */
    public static Optional<Lease> get() {
        return CurrentLeaseBinder.current();
    }

    /**
     * Makes {@code lease} the current thread's lease until the returned binding is closed, exactly
     * as a {@link Locked} call does for its body: transactions that begin on this thread meanwhile
     * are fenced by it (the fence row's guard first, JPA entities stamped, the lease checked before
     * commit). For integrations whose lock is taken and released by calls of their own rather than
     * around one method (a ShedLock task, a Spring Integration {@code Lock}); a {@code @Locked} method
     * needs none of it.
     *
     * <p>Bindings nest; the innermost is current. Take the binding before the transactions begin
     * and close it after they complete, on the same thread.
     *
     * @return the binding; closing it is idempotent and must happen on the thread that bound it
     * @throws NullPointerException if {@code lease} is null
     */
    public static Binding bind(Lease lease) {
        Objects.requireNonNull(lease, "lease");
        return new Binding(CurrentLeaseBinder.open(lease));
    }

    /** A lease made current by {@link #bind}; not thread-safe: close it on the thread that bound it. */
    public static final class Binding implements AutoCloseable {
        private final AutoCloseable binding;
        private boolean closed;

        private Binding(AutoCloseable binding) {
            this.binding = binding;
        }

        /** Ends the binding; later calls do nothing. */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            try {
                binding.close();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
