package dev.fencedlock.internal.binding;

import dev.fencedlock.Lease;

/**
 * Makes a lease the current thread's lease for a framework that fences the thread's work by it
 * (the Spring Boot starter's {@code CurrentLease}). Found by {@link java.util.ServiceLoader} through
 * {@link ThreadLease#bind}; integrations whose lock is taken and released by calls of their own
 * (ShedLock's provider, Spring Integration's registry) bind through that, so they need no compile
 * time dependency on the framework. Implementations must be thread-safe.
 *
 * <p>Not API: implemented by the fencedlock Spring Boot starter, registered in {@code
 * META-INF/services/dev.fencedlock.internal.binding.ThreadLeaseBinder}.
 */
public interface ThreadLeaseBinder {

    /**
     * Makes {@code lease} the calling thread's current lease until the returned handle is closed
     * on the same thread.
     */
    AutoCloseable bind(Lease lease);
}
