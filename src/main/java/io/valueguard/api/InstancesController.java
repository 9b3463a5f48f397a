package io.valueguard.api;

import java.util.List;

import io.swagger.v3.oas.annotations.Operation;
import io.valueguard.routing.InstanceReport;
import io.valueguard.routing.InstanceReports;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** Every instance: its host, streams states, and each store partition it holds with its role and lag. */
@RestController
class InstancesController {

	private final InstanceReports reports;

	InstancesController(InstanceReports reports) {
		this.reports = reports;
	}

	@Operation(summary = "Every instance: its address, each stage's streams state, and every store partition it "
			+ "holds (active or standby) with its changelog lag")
	@GetMapping("/api/instances")
	ResponseEntity<List<InstanceReport>> instances() {
		return Responses.servedBy(List.of(this.reports.self())).body(this.reports.all());
	}

}
