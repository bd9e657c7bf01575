package dev.fencedlock.spring.internal;

/** The body of a locked call: a method invocation or a transaction callback. */
@FunctionalInterface
interface LockedWork<T> {
    T run() throws Throwable;
}
