// Sample positions for the table's demo mode (?demo=…), used for screenshots
// and for trying the page without a server. Each returns the messages a
// server would send, in the protocol's shapes (docs/protocol.md).
//
//   demo=1 | play   4 players in pairs (online), our turn, after the draw
//   demo=draw       same table, our turn to draw or take
//   demo=waiting    a table waiting for players (we are the creator)
//   demo=deal       the end of a deal: the score breakdown
//   demo=over       the end of the match: the score sheet
//   demo=canasta    canasta, 2 players: red 3s, cards under the pile
//   demo=six        italian, 6 players in three pairs, open hands
//   demo=eight      the online table with eight melds on our line, our turn to draw
//                   (with &guide=1, the coach open too): a laptop must show it all
//   demo=closed     a closed pile just taken (buraco fechado): its top card, A♦, to meld first

function seats(names, kinds = []) {
  return names.map((name, seat) => ({ seat, name, kind: kinds[seat] || (name ? 'human' : 'empty'), connected: kinds[seat] !== 'offline' }));
}

function tableInfo(extra) {
  return {
    table: 'demo', variant: 'online', players: 4, lines: 2, deals: 3, target: null,
    move_seconds: 40, bot: 'greedy', open_hands: false, takeover: true, status: 'playing',
    totals: [640, 415], deal: 2, ...extra,
  };
}

const DEAL1 = {
  lines: [
    { line: 0, seats: [0, 2], melded: 235, in_hand: -40, burracos: [['clean', 200]], closing: 100, pozzetto_penalty: 0, relancinho: 0, red_threes: 0, total: 495 },
    { line: 1, seats: [1, 3], melded: 180, in_hand: -140, burracos: [], closing: 0, pozzetto_penalty: -100, relancinho: 0, red_threes: 0, total: -60 },
  ],
  points: [495, -60], end_reason: 'closed', closer: 2,
};
const DEAL2 = {
  lines: [
    { line: 0, seats: [0, 2], melded: 165, in_hand: -20, burracos: [], closing: 0, pozzetto_penalty: 0, relancinho: 0, red_threes: 0, total: 145 },
    { line: 1, seats: [1, 3], melded: 310, in_hand: -35, burracos: [['semi-clean', 150], ['dirty', 100]], closing: 100, pozzetto_penalty: 0, relancinho: 0, red_threes: 0, total: 625 },
  ],
  points: [145, 625], end_reason: 'closed', closer: 3,
};
const DEAL3 = {
  lines: [
    { line: 0, seats: [0, 2], melded: 280, in_hand: -15, burracos: [['clean', 200], ['dirty', 100]], closing: 100, pozzetto_penalty: 0, relancinho: 0, red_threes: 0, total: 665 },
    { line: 1, seats: [1, 3], melded: 95, in_hand: -160, burracos: [], closing: 0, pozzetto_penalty: -100, relancinho: 0, red_threes: 0, total: -165 },
  ],
  points: [665, -165], end_reason: 'closed', closer: 0,
};

function onlineState(now, phase) {
  const draw = phase === 'draw';
  const hand = ['JK', '2C', '5H', '6H', '7H', '9S', '9D', 'QS', 'KS', 'AC', '4D'];
  if (!draw) hand.push('8S');
  const legal = draw ? ['draw', 'take']
    : ['meld 5H 6H 7H', 'meld JK 5H 6H', 'extend 0 8S', 'extend 0 JK', 'extend 0 2C', 'extend 1 JK', 'extend 2 JK',
      ...hand.map((c) => `discard ${c}`)];
  return {
    type: 'state', version: 57, seat: 0,
    table: tableInfo({ seats: seats(['Anna', 'Bruno', 'Carla', 'Dario'], ['human', 'human', 'human', 'bot']) }),
    view: {
      phase, turn: 0, dealer: 3, deal: 2,
      hand,
      partner_hands: {},
      hand_sizes: [hand.length, 7, 9, 4],
      line_of: [0, 1, 0, 1], line: 0,
      melds: [
        [['3S', '4S', '5S', '6S', '7S'], ['JD', 'JC', 'JH'], ['8H', '9H', '10H', 'JH', 'QH', 'KH', 'AH']],
        [['9C', '10C', 'JC', 'QC'], ['KD', 'KH', '2S'], ['4H', '4C', '4S', '4S'], ['6D', '7D', '8D', '9D', '10D', 'JD', 'QD', 'KD']],
      ],
      // What the server adds (messages.table_points): each burraco's grade, each line's points.
      grades: [[null, null, 'clean'], [null, null, null, 'clean']],
      line_points: [390, 410],
      pile: ['7D', '3C', 'QD', '5C', 'AS', '9C'], pile_hidden: 0,
      stock: 41, pozzetti: [11], has_pozzetto: [false, true],
      pozzetto_face_down: [0, 0, 0, 0],
      red_threes: [0, 0], opened: [true, true], minimum: [0, 0],
      taken_single: null, final_turn: false,
    },
    legal,
    last: draw ? { seat: 3, action: 'discard 9C' } : { seat: 0, action: 'draw' },
    clock: { seat: 0, deadline: now + (draw ? 38000 : 27000), seconds: 40 },
    totals: [495, -60],
    scores: [DEAL1],
  };
}

function events(list, from) {
  return list.map(([seat, action], i) => ({ type: 'event', version: from + i, seat, action }));
}

const ONLINE_EVENTS = [
  [1, 'draw'], [1, 'meld 4H 4C 4S'], [1, 'discard QD'], [2, 'take'], [2, 'extend 1 JH'],
  [2, 'discard 5C'], [3, 'draw'], [3, 'extend 2 4S'], [3, 'discard AS'], [0, 'draw'],
  [0, 'discard KC'], [1, 'draw'], [1, 'discard 9C'],
];

export function demoMessages(kind, now) {
  switch (kind) {
    case 'waiting': {
      const info = tableInfo({ status: 'waiting', totals: [0, 0], deal: 1, seats: seats(['Anna', 'Bruno', '', '']) });
      return { seat: 0, messages: [{ type: 'state', version: 0, table: info, seat: 0, view: null, legal: [], last: null, clock: null, totals: [0, 0], scores: [] }] };
    }
    case 'draw':
      return { seat: 0, messages: [...events(ONLINE_EVENTS, 44), onlineState(now, 'draw')] };
    case 'deal': {
      const st = onlineState(now, 'draw');
      st.view.phase = 'over';
      st.legal = [];
      st.clock = null;
      return { seat: 0, messages: [st, { type: 'deal_over', deal: 2, score: DEAL2, totals: [640, 565] }] };
    }
    case 'over': {
      const st = onlineState(now, 'draw');
      st.table.status = 'over';
      st.view.phase = 'over';
      st.legal = [];
      st.clock = null;
      st.totals = [1305, 400];
      st.scores = [DEAL1, DEAL2, DEAL3];
      return { seat: 0, messages: [st, { type: 'match_over', totals: [1305, 400], winner: 0, victory_points: [20, 0], abandoned_by: null }] };
    }
    case 'canasta':
      return { seat: 0, messages: [canastaState(now)] };
    case 'six':
      return { seat: 1, messages: [sixState(now)] };
    case 'closed': {
      const st = onlineState(now, 'play');
      st.view.hand.push('QD', 'KD', 'AD');
      st.view.hand_sizes[0] = st.view.hand.length;
      Object.assign(st.view, { pile: [], pile_hidden: 0, pile_top: 'AD' });
      st.legal = ['meld QD KD AD'];
      st.last = { seat: 0, action: 'take' };
      return { seat: 0, messages: [st] };
    }
    case 'eight': {
      const st = onlineState(now, 'draw');
      st.view.melds[0] = [
        ['3S', '4S', '5S'], ['7H', '8H', '9H', '10H'], ['QC', 'QD', 'QS'], ['5D', '6D', '7D'],
        ['9C', '10C', 'JC', 'QC', 'KC'], ['AH', 'AD', 'AC'], ['8S', '8D', '8C'],
        ['3D', '4D', '5D', '6D', '7D', '8D', '9D'],
      ];
      st.view.grades[0] = [null, null, null, null, null, null, null, 'clean'];
      st.view.line_points[0] = 760;
      return { seat: 0, messages: [...events(ONLINE_EVENTS, 44), st] };
    }
    default:
      return { seat: 0, messages: [...events(ONLINE_EVENTS, 44), onlineState(now, 'play')] };
  }
}

function canastaState(now) {
  const hand = ['JK', '2H', '7H', '7S', '7C', '8D', '8S', 'QH', 'QC', 'KD', 'KS', 'AD', 'AS', '4C', '5H', '6D', '9S'];
  return {
    type: 'state', version: 23, seat: 0,
    table: tableInfo({ variant: 'canasta', players: 2, lines: 2, deals: null, target: 15000, move_seconds: 60, totals: [2350, 1820], deal: 3, seats: seats(['Anna', 'Expert bot'], ['human', 'bot']) }),
    view: {
      phase: 'draw', turn: 0, dealer: 1, deal: 3, hand, partner_hands: {},
      hand_sizes: [hand.length, 14], line_of: [0, 1], line: 0,
      melds: [
        [['KH', 'KH', 'KC', 'JK'], ['AH', 'AC', 'AC', '2S']],
        [['9H', '9D', '9C', '9C', '9S', '2D', 'JK'], ['QD', 'QS', 'QS']],
      ],
      pile: ['5C', '6H', '10C', '7D'], pile_hidden: 3,
      stock: 88, pozzetti: [], has_pozzetto: [false, false], pozzetto_face_down: [0, 0],
      red_threes: [2, 1], opened: [true, true], minimum: [0, 0], taken_single: null, final_turn: false,
    },
    legal: ['draw', 'take 7H 7S', 'take 7H 7C', 'take 7S 7C'],
    last: { seat: 1, action: 'discard 7D' },
    clock: { seat: 0, deadline: now + 52000, seconds: 60 },
    totals: [2350, 1820], scores: [],
  };
}

function sixState(now) {
  const hand = ['3D', '4D', '5D', 'JK', '8C', '8H', 'QS', 'QH', '10S', 'KC'];
  return {
    type: 'state', version: 88, seat: 1,
    table: tableInfo({ variant: 'italian', players: 6, lines: 3, deals: null, target: 2005, open_hands: true, totals: [320, 455, 210], deal: 1,
      seats: seats(['Anna', 'Bruno', 'Carla', 'Dario', 'Elena', 'Franco'], ['human', 'human', 'bot', 'human', 'bot', 'offline']) }),
    view: {
      phase: 'draw', turn: 3, dealer: 2, deal: 1, hand,
      partner_hands: { 4: ['2S', '6C', '7C', '9H', 'JD', 'AS'] },
      hand_sizes: [8, hand.length, 12, 6, 6, 9], line_of: [0, 1, 2, 0, 1, 2], line: 1,
      melds: [
        [['5S', '6S', '7S', '8S'], ['10D', '10H', '10C']],
        [['9C', '10C', 'JC', 'QC', 'KC', 'AC', '2C'], ['6H', '7H', '8H']],
        [['3S', '3C', '3H', '2D'], ['JH', 'QH', 'KH', 'AH'], ['AD', 'AS', 'AC']],
      ],
      pile: ['4C', 'KS', '9D'], pile_hidden: 0,
      stock: 71, pozzetti: [11, 11], has_pozzetto: [false, true, false],
      pozzetto_face_down: [0, 0, 0, 0, 0, 0],
      red_threes: [0, 0, 0], opened: [true, true, true], minimum: [0, 0, 0],
      taken_single: null, final_turn: false,
    },
    legal: [],
    last: { seat: 2, action: 'discard 9D' },
    clock: { seat: 3, deadline: now + 33000, seconds: 40 },
    totals: [320, 455, 210], scores: [],
  };
}

/**
 * A short built-in replay for ?demo=1 on the replay page: a two-player
 * online deal, played by a tiny simulator (it trusts the script: the real
 * frames come from the server, which checks every action with the engine).
 */
export function demoReplay() {
  const view = {
    phase: 'draw', turn: 1, dealer: 0, deal: 1,
    hands: [
      ['3H', '4H', '9S', '9D', 'QC', 'KC', 'JK', '7D', '8D', 'AS', '5C'],
      ['6S', '7S', '8S', '2D', 'QH', 'QD', '10C', '4C', 'KD', 'AH', '3S'],
    ],
    hand_sizes: [11, 11], line_of: [0, 1], melds: [[], []],
    pile: ['5H'], pile_hidden: 0, stock: 63, pozzetti: [11, 11], has_pozzetto: [false, false],
    pozzetto_face_down: [0, 0], red_threes: [0, 0], opened: [true, true], minimum: [0, 0],
    taken_single: null, final_turn: false,
  };
  const draws = ['QS', '6D', 'JC', '9H', '10D', 'KS'];
  const script = [
    [1, 'draw'], [1, 'meld 6S 7S 8S'], [1, 'discard 3S'],
    [0, 'take'], [0, 'meld 3H 4H 5H'], [0, 'discard 5C'],
    [1, 'draw'], [1, 'extend 0 2D'], [1, 'discard 10C'],
    [0, 'draw'], [0, 'meld QC KC JK'], [0, 'discard AS'],
    [1, 'draw'], [1, 'meld QH QD QS'], [1, 'discard 4C'],
    [0, 'draw'], [0, 'discard 9S'],
  ];
  const copy = (x) => JSON.parse(JSON.stringify(x));
  const frames = [{ seat: null, action: null, view: copy(view) }];
  const take = (hand, card) => { const i = hand.indexOf(card); if (i >= 0) hand.splice(i, 1); };
  for (const [seat, action] of script) {
    const [verb, ...rest] = action.split(' ');
    const hand = view.hands[seat];
    const line = view.line_of[seat];
    if (verb === 'draw') { hand.push(draws.shift() || '3C'); view.stock -= 1; view.phase = 'play'; }
    if (verb === 'take') { hand.push(...view.pile); view.pile = []; view.phase = 'play'; }
    if (verb === 'meld') { rest.forEach((c) => take(hand, c)); view.melds[line].push(rest); }
    if (verb === 'extend') { take(hand, rest[1]); view.melds[line][Number(rest[0])].push(rest[1]); }
    if (verb === 'discard') { take(hand, rest[0]); view.pile.push(rest[0]); view.turn = 1 - seat; view.phase = 'draw'; }
    view.hand_sizes = view.hands.map((h) => h.length);
    frames.push({ seat, action, view: copy(view) });
  }
  const info = {
    table: 'demo', variant: 'online', players: 2, lines: 2, deals: 3, target: null,
    seats: [{ seat: 0, name: 'Anna', kind: 'human' }, { seat: 1, name: 'Bruno', kind: 'bot' }],
  };
  return { info, frames, record: '' };
}
