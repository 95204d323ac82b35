// three-mesh-bvh's PointsBVH on the cloud and cursor rays `points --export DIR` wrote:
// the build of the BVH over 1M points, and the first-hit raycast of each cursor ray with a
// world threshold (the radius 5 px spans at the cloud's centre), one at a time, on one
// thread. Prints one JSON line. Run through scripts/points_three.sh.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import * as THREE from 'three';
import { PointsBVH } from 'three-mesh-bvh';

const dir = process.argv[2];
const meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8'));
const f32 = (name) => {
	const b = readFileSync(join(dir, name));
	return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
};
const positions = f32('points.f32');
const rays = f32('rays.f32');

const geometry = new THREE.BufferGeometry();
geometry.setAttribute('position', new THREE.BufferAttribute(positions, 3));
// Warm the JIT on a small cloud first, so the timed build is the steady state.
{
	const g = new THREE.BufferGeometry();
	g.setAttribute('position', new THREE.BufferAttribute(positions.slice(0, 30000), 3));
	new PointsBVH(g);
}
let t = performance.now();
const bvh = new PointsBVH(geometry);
const buildS = (performance.now() - t) / 1e3;

const points = new THREE.Points(geometry);
points.updateMatrixWorld();
const raycaster = new THREE.Raycaster();
raycaster.firstHitOnly = true;
raycaster.params.Points.threshold = meta.radius;
const count = rays.length / 6;
const cast = (i) => {
	raycaster.ray.origin.set(rays[6 * i], rays[6 * i + 1], rays[6 * i + 2]);
	raycaster.ray.direction.set(rays[6 * i + 3], rays[6 * i + 4], rays[6 * i + 5]);
	return bvh.raycastObject3D(points, raycaster, []).length;
};
for (let i = 0; i < count; i++) cast(i); // warm-up pass
const us = [];
let hits = 0;
for (let i = 0; i < count; i++) {
	t = performance.now();
	hits += cast(i);
	us.push((performance.now() - t) * 1e3);
}
us.sort((a, b) => a - b);
console.log(JSON.stringify({
	engine: 'three-mesh-bvh PointsBVH',
	version: JSON.parse(readFileSync(new URL('../node_modules/three-mesh-bvh/package.json', import.meta.url), 'utf8')).version,
	points: positions.length / 3,
	build_s: buildS,
	raycast_median_us: us[us.length >> 1],
	raycast_p99_us: us[Math.floor(us.length * 0.99)],
	hits,
	rays: count,
}));
