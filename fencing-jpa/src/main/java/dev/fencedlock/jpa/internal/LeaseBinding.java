package dev.fencedlock.jpa.internal;

import dev.fencedlock.Lease;
import java.util.Optional;

/**
 * The leases bound to the current thread, innermost first; dropped when the outermost binding ends.
 * Not thread-safe by design: each thread has its own.
 */
final class LeaseBinding {
    private static final ThreadLocal<LeaseBinding> CURRENT = new ThreadLocal<>();

    private final Thread owner = Thread.currentThread();
    private Frame top;

    /** One bind; frames form a stack per thread. */
    static final class Frame {
        private final Lease lease;
        private final Frame below;
        private final LeaseBinding binding;

        private Frame(Lease lease, Frame below, LeaseBinding binding) {
            this.lease = lease;
            this.below = below;
            this.binding = binding;
        }

        public Lease lease() {
            return lease;
        }
    }

    private LeaseBinding() {}

    /** Binds {@code lease} on the current thread above any binding already there. */
    public static Frame push(Lease lease) {
        LeaseBinding binding = CURRENT.get();
        if (binding == null) {
            binding = new LeaseBinding();
            CURRENT.set(binding);
        }
        Frame frame = new Frame(lease, binding.top, binding);
        binding.top = frame;
        return frame;
    }

    /**
     * Removes {@code frame}, which must be the innermost binding of the current thread.
     *
     * @throws IllegalStateException if called from another thread or out of order; nothing changes
     */
    public static void pop(Frame frame) {
        if (Thread.currentThread() != frame.binding.owner) {
            throw new IllegalStateException("A FencingScope must be closed on the thread that opened it ('"
                    + frame.binding.owner.getName() + "'), not on '"
                    + Thread.currentThread().getName() + "'");
        }
        LeaseBinding binding = frame.binding;
        if (binding.top != frame) {
            throw new IllegalStateException("FencingScopes must be closed innermost first: the scope for lock '"
                    + frame.lease.lockName() + "' still has a scope for lock '"
                    + binding.top.lease.lockName() + "' open inside it");
        }
        binding.top = frame.below;
        if (binding.top == null) {
            CURRENT.remove();
        }
    }

    /** The innermost lease bound to the current thread. */
    public static Optional<Lease> current() {
        LeaseBinding binding = CURRENT.get();
        return binding == null ? Optional.empty() : Optional.of(binding.top.lease);
    }
}
