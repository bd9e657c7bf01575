package dev.fencedlock.spring.internal;

import dev.fencedlock.spring.FencedLockStartupException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports fencedlock's configuration and schema errors at start-up as Spring Boot's short "APPLICATION
 * FAILED TO START" description and action instead of the stack trace. Registered in {@code
 * META-INF/spring.factories}.
 */
final class FencedLockFailureAnalyzer extends AbstractFailureAnalyzer<FencedLockStartupException> {
    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, FencedLockStartupException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.action(), cause);
    }
}
