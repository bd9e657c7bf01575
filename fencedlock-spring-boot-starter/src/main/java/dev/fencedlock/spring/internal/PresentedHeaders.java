package dev.fencedlock.spring.internal;

import java.util.Optional;

/**
 * Where a {@code @FencedBy} call finds the {@code Fencing-Token} value presented to it: the HTTP
 * request the thread serves ({@link RequestPresentedHeaders}), later a message being consumed. The
 * starter asks every source in order and takes the first that knows the thread's request or
 * message. Implementations are thread-safe and read only the calling thread's state.
 */
@FunctionalInterface
interface PresentedHeaders {

    /**
     * What the request or message the current thread serves presents; empty when this source knows
     * of none on the thread.
     */
    Optional<Presented> current();

    /**
     * One request's or message's header.
     *
     * @param origin how messages name the request or message ({@code "HTTP request POST /ship"})
     * @param value the header's value, several lines joined with {@code ", "}; null when absent
     */
    record Presented(String origin, String value) {}
}
