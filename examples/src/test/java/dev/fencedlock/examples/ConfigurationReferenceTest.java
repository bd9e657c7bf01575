package dev.fencedlock.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.LockConfig;
import dev.fencedlock.jpa.FencingSettings;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * Keeps {@code docs/configuration.md} and the code's key definitions equal: every key the code
 * defines has a row in the page's tables, and every row names a key the code defines.
 *
 * <p>What the code defines: {@link LockConfig#keys()} (the common keys and the keys of every backend
 * on this module's classpath, which holds all of them), the {@code fencedlock.*} constants of
 * fencing-jpa's {@link FencingSettings}, and the properties the Spring starter declares in its
 * {@code META-INF/spring-configuration-metadata.json} (the starter's own test keeps that file equal
 * to the keys it reads). A row is a Markdown table line whose first cell is one key in backticks.
 */
class ConfigurationReferenceTest {
    private static final Path PAGE = Path.of("docs", "configuration.md");
    private static final Path STARTER_METADATA = Path.of(
            "fencedlock-spring-boot-starter",
            "src",
            "main",
            "resources",
            "META-INF",
            "spring-configuration-metadata.json");

    /** A table row whose first cell is a single key: {@code | `fencedlock.x` | ...}. */
    private static final Pattern ROW = Pattern.compile("^\\|\\s*`(fencedlock\\.[^`]+)`\\s*\\|", Pattern.MULTILINE);

    private static final Pattern PROPERTIES = Pattern.compile("(?<!\\\\)\"properties\"\\s*:\\s*\\[");
    private static final Pattern NAME = Pattern.compile("(?<!\\\\)\"name\"\\s*:\\s*\"([^\"]+)\"");

    @Test
    void thePageListsExactlyTheKeysTheCodeDefines() throws IOException {
        Path root = repositoryRoot();
        Set<String> documented = documentedKeys(Files.readString(root.resolve(PAGE)));
        Set<String> defined = new TreeSet<>(LockConfig.keys());
        defined.addAll(constantsOf(FencingSettings.class));
        defined.addAll(starterProperties(Files.readString(root.resolve(STARTER_METADATA))));

        // both directions reported at once, so one run names every row to add and to remove
        SoftAssertions.assertSoftly(softly -> {
            softly.assertThat(difference(defined, documented))
                    .as("keys defined in the code but missing from docs/configuration.md")
                    .isEmpty();
            softly.assertThat(difference(documented, defined))
                    .as("keys in docs/configuration.md that the code does not define")
                    .isEmpty();
        });
    }

    private static Set<String> difference(Set<String> from, Set<String> without) {
        Set<String> rest = new TreeSet<>(from);
        rest.removeAll(without);
        return rest;
    }

    @Test
    void aRowIsOneKeyInTheFirstCell() {
        String page = String.join(
                "\n",
                "| key | meaning |",
                "|---|---|",
                "| `fencedlock.backend` | the backend |",
                "| `fencedlock.a`, `fencedlock.b` | two keys in one cell do not count |",
                "prose naming `fencedlock.lease-time` does not count either");

        assertThat(documentedKeys(page)).containsExactly("fencedlock.backend");
    }

    @Test
    void theStarterPropertiesAreTheNamesInThePropertiesArrayOnly() {
        String metadata = "{\"groups\": [{\"name\": \"fencedlock\"}],"
                + " \"properties\": [{\"name\": \"fencedlock.initialize-schema\","
                + " \"description\": \"a [bracket] and a \\\"quoted\\\" word\"},"
                + " {\"name\": \"fencedlock.backend\"}],"
                + " \"hints\": [{\"name\": \"fencedlock.hinted\"}]}";

        assertThat(starterProperties(metadata)).containsExactly("fencedlock.backend", "fencedlock.initialize-schema");
    }

    static Set<String> documentedKeys(String page) {
        Set<String> keys = new TreeSet<>();
        Matcher row = ROW.matcher(page);
        while (row.find()) {
            keys.add(row.group(1));
        }
        return keys;
    }

    /** The values of the {@code public static final String} fields that name a {@code fencedlock.*} key. */
    static Set<String> constantsOf(Class<?> settings) {
        Set<String> keys = new TreeSet<>();
        for (Field field : settings.getFields()) {
            int modifiers = field.getModifiers();
            if (Modifier.isStatic(modifiers) && Modifier.isFinal(modifiers) && field.getType() == String.class) {
                try {
                    String value = (String) field.get(null);
                    if (value.startsWith(LockConfig.PREFIX)) {
                        keys.add(value);
                    }
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                }
            }
        }
        return keys;
    }

    /** The names of the entries of the metadata's {@code properties} array (not its groups or hints). */
    static Set<String> starterProperties(String metadata) {
        Matcher start = PROPERTIES.matcher(metadata);
        assertThat(start.find())
                .as("a \"properties\" array in the starter's metadata")
                .isTrue();
        String properties = metadata.substring(start.end(), closingBracket(metadata, start.end()));
        Set<String> names = new TreeSet<>();
        Matcher name = NAME.matcher(properties);
        while (name.find()) {
            names.add(name.group(1));
        }
        return names;
    }

    /** The index of the {@code ]} that closes the array whose first element starts at {@code from}. */
    private static int closingBracket(String json, int from) {
        int depth = 1;
        boolean inString = false;
        for (int i = from; i < json.length(); i++) {
            char c = json.charAt(i);
            if (inString) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    inString = false;
                }
            } else if (c == '"') {
                inString = true;
            } else if (c == '[') {
                depth++;
            } else if (c == ']' && --depth == 0) {
                return i;
            }
        }
        throw new AssertionError("unterminated array in the starter's metadata");
    }

    /** The reactor root: the nearest directory upwards from the working directory that holds the page. */
    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve(PAGE))) {
                return dir;
            }
        }
        throw new AssertionError(PAGE + " not found above " + Path.of("").toAbsolutePath());
    }
}
