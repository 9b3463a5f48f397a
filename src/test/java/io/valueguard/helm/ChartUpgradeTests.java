package io.valueguard.helm;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.UnaryOperator;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetSpec;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code helm upgrade} from an earlier build's chart ({@code -Dvalueguard.upgrade.from-chart}, its
 * {@code helm/valueguard}, which {@code scripts/upgrade-check.sh} passes): the values an operator wrote for the earlier
 * chart render with this one, and the StatefulSet's fields that Kubernetes refuses to change in place (all of its spec
 * but the replicas, ordinals, pod template, update strategy, revision history limit, claim retention policy and
 * minReadySeconds) render the same, or the upgrade would fail with "updates to statefulset spec for fields other than
 * ... are forbidden" and need the StatefulSet deleted first. Without the property it is skipped.
 */
class ChartUpgradeTests {

	private static final String FROM_CHART = System.getProperty("valueguard.upgrade.from-chart", "");

	private static final KubernetesSerialization KUBERNETES = new KubernetesSerialization();

	private static final String ISSUER = "https://login.example.com/realms/platform";

	private static @Nullable Path earlier;

	private static @Nullable Path current;

	@BeforeAll
	static void copyCharts(@TempDir Path copies) throws Exception {
		if (FROM_CHART.isBlank()) {
			return;
		}
		assertThat(Path.of(FROM_CHART).resolve("Chart.yaml")).as("-Dvalueguard.upgrade.from-chart").isRegularFile();
		earlier = RenderableChart.copyOf(Path.of(FROM_CHART), Files.createDirectories(copies.resolve("earlier")));
		current = RenderableChart.copyOf(Path.of("helm", "valueguard"),
				Files.createDirectories(copies.resolve("current")));
	}

	@Test
	void shouldKeepTheStatefulSetsUnchangeableFieldsWithTheDefaultValues() {
		assumeEarlierChart();
		assertThat(unchangeable(statefulSet(current, (template) -> template.set("security.jwt.issuerUri", ISSUER))))
			.isEqualTo(unchangeable(statefulSet(earlier, (template) -> template.set("security.jwt.issuerUri", ISSUER))));
	}

	@Test
	void shouldRenderTheEarlierChartsProductionValuesAndKeepTheUnchangeableFields() {
		assumeEarlierChart();
		Path values = earlier.resolve("ci").resolve("production-values.yaml");
		assumeTrue(Files.isRegularFile(values), "the earlier chart has no production values");

		// this chart's schema refuses what it does not know: a values file written for the earlier chart must pass it
		// (the file leaves the issuer to the chart tests, as HelmChartTests renders it)
		StatefulSet upgraded = statefulSet(current,
				(template) -> template.withValuesFile(values).set("security.jwt.issuerUri", ISSUER));

		assertThat(unchangeable(upgraded)).isEqualTo(unchangeable(statefulSet(earlier,
				(template) -> template.withValuesFile(values).set("security.jwt.issuerUri", ISSUER))));
	}

	private static void assumeEarlierChart() {
		assumeTrue(earlier != null, "no earlier chart given: scripts/upgrade-check.sh <commit> passes the earlier build's");
	}

	private static StatefulSet statefulSet(Path chart, UnaryOperator<TemplateCommand> options) {
		String manifests = options.apply(new Helm(chart).template().withName("vg").withNamespace("data")).call();
		Optional<StatefulSet> found = Arrays.stream(manifests.split("(?m)^---\\s*$"))
			.filter((document) -> document.contains("kind: StatefulSet"))
			.map((document) -> (StatefulSet) KUBERNETES.unmarshal(document))
			.findFirst();
		assertThat(found).as("a StatefulSet rendered from " + chart).isPresent();
		return found.get();
	}

	/** The StatefulSet's spec without the fields Kubernetes lets an update change, as YAML. */
	private static String unchangeable(StatefulSet statefulSet) {
		StatefulSetSpec spec = KUBERNETES.clone(statefulSet.getSpec());
		spec.setReplicas(null);
		spec.setOrdinals(null);
		spec.setTemplate(null);
		spec.setUpdateStrategy(null);
		spec.setRevisionHistoryLimit(null);
		spec.setPersistentVolumeClaimRetentionPolicy(null);
		spec.setMinReadySeconds(null);
		return KUBERNETES.asYaml(spec) + "name: " + statefulSet.getMetadata().getName() + "\n";
	}

}
