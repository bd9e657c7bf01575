package dev.fencedlock.spring;

/**
 * fencedlock cannot work as configured, found while the application starts: a {@code
 * fencedlock.*} setting is missing, unknown or bad (the cause is the library's {@link
 * IllegalArgumentException} naming the key), or a table the configuration needs is missing. Spring
 * Boot reports it as "APPLICATION FAILED TO START" with its {@link #getMessage() description} and
 * {@link #action()} ({@code FencedLockFailureAnalyzer}).
 */
public class FencedLockStartupException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final String action;

    /**
     * @param description what is wrong, naming the key or the table
     * @param action what fixes it, naming the setting or the migration
     * @param cause the library's or the database's failure, or null
     */
    public FencedLockStartupException(String description, String action, Throwable cause) {
        super(description, cause);
        this.action = action;
    }

    /** What fixes it: the setting to change or the migration to run. */
    public String action() {
        return action;
    }
}
