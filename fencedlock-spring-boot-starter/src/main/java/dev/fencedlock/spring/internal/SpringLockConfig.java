package dev.fencedlock.spring.internal;

import dev.fencedlock.LockConfig;
import dev.fencedlock.spring.FencedLockStartupException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Reads every {@code fencedlock.*} property of a Spring {@link Environment} and hands them to {@link
 * LockConfig#fromMap}, which validates them and names the key of a bad or unknown one.
 *
 * <p>Two Spring idioms are mapped back to the library's keys: a YAML list ({@code nodes: [a, b]})
 * becomes the comma-separated value, and an environment variable ({@code
 * FENCEDLOCK_REDLOCK_NODE_TIMEOUT}) is matched to the known key it spells. Nothing else is changed:
 * a misspelt key stays misspelt and is rejected.
 *
 * <p>With the redlock backend and no Redis address among the {@code fencedlock.redlock.*} keys,
 * Spring Boot's {@code spring.data.redis.sentinel.*} or {@code spring.data.redis.cluster.nodes}
 * supply it ({@link SpringDataRedis}).
 *
 * <p>Which names are checked depends on where they come from. What the application set (its
 * {@code application.properties}/YAML, profiles, command-line arguments, test properties) is
 * strict: every unknown {@code fencedlock.*} key fails start-up. The process's surroundings (system
 * properties and environment variables, which build tools and shells share with other programs)
 * only count where they name a key: a name there that is no key is ignored, unless it resembles one
 * ({@link LockConfig#ignoreUnlessMisspelt}). Either failure is worded by {@link
 * LockConfig#unknownKey}, with the starter's keys among the known ones, and names the name as it
 * was written: {@code FENCEDLOCK_LEASE_TMIE}, not the {@code fencedlock.lease.tmie} Spring binds it
 * as.
 */
final class SpringLockConfig {
    private static final String PREFIX = "fencedlock";
    /** How messages name every source but system properties and environment variables. */
    private static final String APPLICATION_SOURCE = "application properties";
    /** A list element as the binder names it: {@code nodes[0]}, or {@code nodes.0} for map keys. */
    private static final Pattern LIST_ELEMENT = Pattern.compile("^(.*)(?:\\[(\\d+)]|\\.(\\d+))$");

    /** How the starter initialises fencedlock's tables: {@code embedded}, {@code always} or {@code never}. */
    public static final String INITIALIZE_SCHEMA = "fencedlock.initialize-schema";

    /** The keys the starter reads itself; they are not handed to {@link LockConfig}. */
    public static final List<String> STARTER_KEYS = starterKeys();

    /** Starter keys that are maps: every name below them ({@code accepted-keys.<id>}) is the starter's too. */
    private static final List<String> STARTER_MAPS = List.of(ReceiverSettings.ACCEPTED_KEYS);

    private SpringLockConfig() {}

    /**
     * @throws IllegalArgumentException as {@link LockConfig#fromMap} does, and for a system property
     *     or environment variable that is no key but resembles one
     */
    public static LockConfig from(Environment environment) {
        Map<String, String> properties = properties(environment);
        properties.keySet().removeIf(SpringLockConfig::isStarterKey);
        SpringDataRedis.Resolved resolved = SpringDataRedis.withBootRedis(properties, Binder.get(environment));
        try {
            return LockConfig.fromMap(resolved.properties());
        } catch (IllegalArgumentException e) {
            if (resolved.takenFrom().isPresent()) {
                throw new IllegalArgumentException(
                        e.getMessage() + " (the fencedlock.redlock keys were taken from "
                                + resolved.takenFrom().get()
                                + "; set fencedlock.redlock.* to configure the lock's Redis apart)",
                        e);
            }
            throw e;
        }
    }

    /**
     * A bad setting found while the context starts, as the failure Spring Boot reports with an
     * action ({@link FencedLockStartupException}); {@code failure}, naming the key, is its cause.
     */
    public static FencedLockStartupException startupFailure(IllegalArgumentException failure) {
        return new FencedLockStartupException(
                failure.getMessage(),
                "Correct or remove the fencedlock.* setting named above, wherever it is set (application"
                        + " properties or YAML, a profile, a command-line argument, a system property or an environment"
                        + " variable). The library's keys are in the README's configuration table, the starter's "
                        + STARTER_KEYS + " in docs/spring.md.",
                failure);
    }

    /**
     * The {@code fencedlock.*} properties, full keys, as the library spells them.
     *
     * @throws IllegalArgumentException for a name that is no key where the application set it, or
     *     one in the surroundings that resembles a key ({@link LockConfig#unknownKey}, naming it as
     *     written)
     */
    static Map<String, String> properties(Environment environment) {
        Map<String, String> all = bind(Binder.get(environment));
        List<String> known = knownKeys();
        if (!(environment instanceof ConfigurableEnvironment configurable)) {
            // no sources to tell the application's from the process's: every name is the application's
            for (String key : all.keySet()) {
                if (!known.contains(key) && !isStarterKey(key)) {
                    throw LockConfig.unknownKey(APPLICATION_SOURCE, key, STARTER_KEYS);
                }
            }
            return all;
        }
        List<PropertySource<?>> applicationSources = new ArrayList<>();
        List<PropertySource<?>> surroundings = new ArrayList<>();
        for (PropertySource<?> source : configurable.getPropertySources()) {
            if (isSurroundings(source)) {
                surroundings.add(source);
            } else if (!ConfigurationPropertySources.isAttachedConfigurationPropertySource(source)) {
                applicationSources.add(source);
            }
        }
        Map<String, String> application = bind(new Binder(ConfigurationPropertySources.from(applicationSources)));
        all.keySet().removeIf(key -> {
            if (known.contains(key) || isStarterKey(key)) {
                return false;
            }
            if (application.containsKey(key)) {
                throw LockConfig.unknownKey(
                        APPLICATION_SOURCE,
                        asWritten(key, applicationSources, APPLICATION_SOURCE).name(),
                        STARTER_KEYS);
            }
            Written written = asWritten(key, surroundings, "system property or environment variable");
            LockConfig.ignoreUnlessMisspelt(written.source(), written.name(), STARTER_KEYS);
            return true;
        });
        return all;
    }

    /** System properties and environment variables: the process's, not the application's. */
    private static boolean isSurroundings(PropertySource<?> source) {
        return source instanceof SystemEnvironmentPropertySource
                || StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME.equals(source.getName());
    }

    /** A name as the user wrote it, and the kind of source it is in, for messages. */
    private record Written(String source, String name) {}

    /**
     * Finds the name that Spring bound to {@code key}: the first name of {@code sources} that is
     * {@code key} in the environment-variable form ({@code FENCEDLOCK_LEASE_TMIE} for {@code
     * fencedlock.lease.tmie}), so that messages name what was typed. The key itself, in a source
     * called {@code unlisted}, when none is (a list element, a source that cannot list its names).
     */
    private static Written asWritten(String key, List<PropertySource<?>> sources, String unlisted) {
        String variable = LockConfig.environmentVariable(key);
        for (PropertySource<?> source : sources) {
            if (source instanceof EnumerablePropertySource<?> enumerable) {
                for (String name : enumerable.getPropertyNames()) {
                    if (LockConfig.environmentVariable(name).equals(variable)) {
                        return new Written(sourceKind(source), name);
                    }
                }
            }
        }
        return new Written(unlisted, key);
    }

    private static String sourceKind(PropertySource<?> source) {
        if (source instanceof SystemEnvironmentPropertySource) {
            return "environment variable";
        }
        return StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME.equals(source.getName())
                ? "system property"
                : APPLICATION_SOURCE;
    }

    private static Map<String, String> bind(Binder binder) {
        Map<String, String> bound =
                binder.bind(PREFIX, Bindable.mapOf(String.class, String.class)).orElseGet(Map::of);
        Map<String, TreeMap<Integer, String>> lists = new TreeMap<>();
        Map<String, String> result = new TreeMap<>();
        for (Map.Entry<String, String> entry : bound.entrySet()) {
            String key = PREFIX + "." + entry.getKey();
            Matcher element = LIST_ELEMENT.matcher(key);
            if (element.matches()) {
                lists.computeIfAbsent(canonical(element.group(1)), k -> new TreeMap<>())
                        .put(
                                Integer.parseInt(element.group(2) != null ? element.group(2) : element.group(3)),
                                entry.getValue());
            } else {
                result.put(canonical(key), entry.getValue());
            }
        }
        lists.forEach((key, elements) -> result.put(key, String.join(",", elements.values())));
        return result;
    }

    private static List<String> starterKeys() {
        List<String> keys = new ArrayList<>(List.of(INITIALIZE_SCHEMA, ProtectedTablesMode.PROPERTY));
        keys.addAll(ReceiverSettings.KEYS);
        TokenSettings.SENDER_KEYS.stream().filter(key -> !keys.contains(key)).forEach(keys::add);
        return List.copyOf(keys);
    }

    private static boolean isStarterKey(String key) {
        return STARTER_KEYS.contains(key) || STARTER_MAPS.stream().anyMatch(map -> key.startsWith(map + "."));
    }

    private static List<String> knownKeys() {
        List<String> keys = new ArrayList<>(LockConfig.keys());
        keys.addAll(STARTER_KEYS);
        return keys;
    }

    private static String canonical(String key) {
        List<String> known = knownKeys();
        if (known.contains(key)) {
            return key;
        }
        String variable = LockConfig.environmentVariable(key);
        return known.stream()
                .filter(candidate -> LockConfig.environmentVariable(candidate).equals(variable))
                .findFirst()
                .orElse(key);
    }
}
