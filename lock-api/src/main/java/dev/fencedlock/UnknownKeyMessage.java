package dev.fencedlock;

import dev.fencedlock.spi.BackendSettings;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The one wording of the error for a configuration name that is no key, whoever read it: a
 * properties map, the classpath file, a system property, an environment variable or a framework's
 * own sources. It names the name exactly as it was written and where, suggests what was meant in
 * that same form ({@link KeyResemblance}), and lists the known keys:
 *
 * <pre>{@code
 * Unknown configuration key 'fencedlock.lease-tme' (system property); did you mean 'fencedlock.lease-time'? Known keys: [...] (backends on the classpath: [...])
 * Unknown configuration key 'FENCEDLOCK_LEASE_TMIE' (environment variable); did you mean 'FENCEDLOCK_LEASE_TIME' (fencedlock.lease-time)? Known keys: ...
 * Unknown configuration key 'fencedlock.version'. Known keys: ...
 * }</pre>
 *
 * <p>A name is in the environment-variable form when it does not start with {@value
 * LockConfig#PREFIX}; its suggestion is then the variable, followed by the key it carries.
 *
 * <p>Stateless and thread-safe.
 */
final class UnknownKeyMessage {
    private static final String START = "Unknown configuration key ";

    private UnknownKeyMessage() {}

    /**
     * @param source where {@code name} was written, e.g. {@code "environment variable"}; {@code
     *     null} when the reader cannot tell (a map handed to {@link LockConfig#fromMap})
     * @param name the name as written, in either form
     * @param knownKeys every key the reader knows, listed in this order
     */
    static String of(String source, String name, Collection<String> knownKeys) {
        List<String> backends = ProviderRegistry.availableBackends();
        StringBuilder message =
                new StringBuilder(START).append('\'').append(name).append('\'');
        if (source != null) {
            message.append(" (").append(source).append(')');
        }
        Optional<String> meant = suggestion(name, knownKeys, backends);
        if (meant.isPresent()) {
            message.append("; did you mean ").append(meant.get()).append('?');
        } else {
            message.append('.');
        }
        return message.append(" Known keys: ")
                .append(knownKeys)
                .append(" (backends on the classpath: ")
                .append(backends)
                .append(')')
                .toString();
    }

    /**
     * What {@code name} was most likely meant to be, written in its form; empty when it resembles
     * no key ({@link KeyResemblance#resembles}).
     */
    static Optional<String> suggestion(String name, Collection<String> knownKeys, Collection<String> backends) {
        boolean variableForm = !name.startsWith(LockConfig.PREFIX);
        Optional<String> key = KeyResemblance.closestKey(name, knownKeys);
        if (key.isPresent()) {
            return Optional.of(
                    variableForm
                            ? "'" + LockConfig.environmentVariable(key.get()) + "' (" + key.get() + ")"
                            : "'" + key.get() + "'");
        }
        return KeyResemblance.backendPrefixOf(name, backends).map(backend -> {
            String prefix = BackendSettings.prefix(backend);
            return "a key of the " + backend + " backend ("
                    + (variableForm ? LockConfig.environmentVariable(prefix) : prefix) + "*)";
        });
    }
}
