package dev.fencedlock.spi;

import dev.fencedlock.BackendStatus;

/** One connected backend of a client: its name, its lease runtime and its provider. */
record Backend(String name, LeaseRuntime runtime, LockProvider provider) {

    /** What the provider reports, under this backend's name. */
    BackendStatus status() {
        return provider.status(name);
    }

    /** Releases the backend's leases, stops its runtime, then closes the provider. */
    void close() {
        try {
            runtime.close();
        } finally {
            provider.close();
        }
    }
}
