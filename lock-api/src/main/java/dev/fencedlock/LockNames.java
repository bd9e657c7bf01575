package dev.fencedlock;

/**
 * The rules for lock names, the same on every backend: not blank, at most {@value #MAX_LENGTH}
 * characters, and no control characters. Any other character, including {@code /}, {@code :} and
 * non-ASCII letters, is allowed; backends with restricted key syntax encode names themselves.
 */
public final class LockNames {

    /** Longest accepted lock name, in UTF-16 characters. */
    public static final int MAX_LENGTH = 256;

    private LockNames() {}

    /**
     * Returns {@code name} unchanged if it is acceptable.
     *
     * @throws IllegalArgumentException naming the rule broken and the offending name
     */
    public static String requireValid(String name) {
        if (name == null) {
            throw new IllegalArgumentException("lock name must not be null");
        }
        if (name.isBlank()) {
            throw new IllegalArgumentException("lock name must not be blank, got '" + name + "'");
        }
        if (name.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("lock name must be at most " + MAX_LENGTH + " characters, got "
                    + name.length() + " characters starting '" + name.substring(0, 32) + "...'");
        }
        for (int i = 0; i < name.length(); i++) {
            if (Character.isISOControl(name.charAt(i))) {
                throw new IllegalArgumentException("lock name must not contain control characters, got one at index "
                        + i + " in '" + name.replaceAll("\\p{Cntrl}", "?") + "'");
            }
        }
        return name;
    }
}
